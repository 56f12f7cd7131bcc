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

/**
 * A kept page cut once at its slots: the bytes between them (one more chunk than slots) and the
 * slots, so that filling it for a person copies those bytes around their small parts instead of
 * decoding, scanning and encoding the whole page each time.
 */
export interface SplitPage {
  chunks: Buffer[];
  slots: Slot[];
}

/** Split pages by the kept bytes they were cut from: a copy lives as long as its page is kept. */
const splits = new WeakMap<Buffer, SplitPage>();

export function splitPage(page: Buffer): SplitPage {
  const known = splits.get(page);
  if (known) return known;
  const text = page.toString();
  const chunks: Buffer[] = [];
  const slots: Slot[] = [];
  let from = 0;
  for (const m of text.matchAll(SLOT)) {
    chunks.push(Buffer.from(text.slice(from, m.index)));
    slots.push({ kind: m[1]!, arg: m[2]! });
    from = m.index + m[0].length;
  }
  chunks.push(Buffer.from(text.slice(from)));
  const split = { chunks, slots };
  splits.set(page, split);
  return split;
}

/**
 * A part kept as encoded pieces with the same bytes between each two (a control and the person's
 * CSRF token): copied into the page as they are, neither joined nor encoded per person.
 */
export interface PiecedPart {
  pieces: readonly Buffer[];
  between: Buffer;
}

export type FilledPart = string | PiecedPart;

const partLength = (part: FilledPart) =>
  typeof part === 'string'
    ? Buffer.byteLength(part)
    : part.pieces.reduce((sum, piece) => sum + piece.length, 0) + (part.pieces.length - 1) * part.between.length;

function writePart(out: Buffer, at: number, part: FilledPart): number {
  if (typeof part === 'string') return at + out.write(part, at);
  at += part.pieces[0]!.copy(out, at);
  for (let i = 1; i < part.pieces.length; i++) {
    at += part.between.copy(out, at);
    at += part.pieces[i]!.copy(out, at);
  }
  return at;
}

/**
 * The page with `parts[i]` in place of its slot i: the kept chunks copied, only the parts encoded,
 * into a buffer of the length it needs from `alloc`.
 */
export function joinSlots(page: SplitPage, parts: readonly FilledPart[], alloc: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  let length = page.chunks[0]!.length;
  for (let i = 0; i < page.slots.length; i++) length += partLength(parts[i]!) + page.chunks[i + 1]!.length;
  const out = alloc(length);
  let at = page.chunks[0]!.copy(out, 0);
  for (let i = 0; i < page.slots.length; i++) {
    at = writePart(out, at, parts[i]!);
    at += page.chunks[i + 1]!.copy(out, at);
  }
  return out;
}

/** Data of a slot's part (a listing's name is user text) as an ARG: base64url JSON, never markup. */
export const slotData = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export const readSlotData = <T>(arg: string): T => JSON.parse(Buffer.from(arg, 'base64url').toString()) as T;

/** Read data of the slots of split pages, decoded once per kept copy (treat as read-only). */
const slotValues = new WeakMap<Slot, unknown>();

export function slotValue<T>(s: Slot): T {
  if (!slotValues.has(s)) slotValues.set(s, readSlotData<T>(s.arg));
  return slotValues.get(s) as T;
}
