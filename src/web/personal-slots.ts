import { html, raw, type SafeHtml } from './html.ts';

/**
 * Personal parts of a kept page (docs/decisions/kept-page-personal-slots.md). A visitor's render
 * marks each part that a signed-in person sees differently (the header's links, a vote or follow
 * control, a comment's forms) with an HTML comment pair around what the visitor sees:
 * `<!--p:KIND:ARG-->visitor content<!--/p-->`. A signed-in request takes the kept copy and puts
 * the person's fragment in place of each pair. User text cannot forge a marker: every interpolated
 * value is escaped by `html` (no `<` survives), and ARG is only ever our own id-like text.
 */
const SLOT = /<!--p:([a-z]+):([A-Za-z0-9_.-]*)-->([\s\S]*?)<!--\/p-->/g;
const ARG = /^[A-Za-z0-9_.-]*$/;

/** A slot around `content` (what a visitor sees). `arg` names what the part is about (an id). */
export function slot(kind: string, arg: string | number, content: SafeHtml | string = ''): SafeHtml {
  const text = String(arg);
  if (!/^[a-z]+$/.test(kind) || !ARG.test(text)) throw new Error(`slot marker ${kind}:${text} is not id-like`);
  return html`${raw(`<!--p:${kind}:${text}-->`)}${content}${raw('<!--/p-->')}`;
}

export interface Slot {
  kind: string;
  arg: string;
}

/** The slots of a kept page, in order. */
export function slotsOf(page: string): Slot[] {
  return [...page.matchAll(SLOT)].map((m) => ({ kind: m[1]!, arg: m[2]! }));
}

/** The page with each slot replaced by `fill(slot)`, in one pass. */
export function fillSlots(page: string, fill: (s: Slot) => string): string {
  return page.replace(SLOT, (_all, kind: string, arg: string) => fill({ kind, arg }));
}

/** Data of a slot's part (a listing's name is user text) as an ARG: base64url JSON, never markup. */
export const slotData = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export const readSlotData = <T>(arg: string): T => JSON.parse(Buffer.from(arg, 'base64url').toString()) as T;
