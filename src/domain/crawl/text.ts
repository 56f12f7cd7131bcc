import { parseHttpUrl } from '../../lib/urls.ts';
/** Collapses whitespace and trims. */
export function clean(s: string | null | undefined): string {
  return (s ?? '').replace(/[\s\u00a0\u200b]+/g, ' ').trim();
}

/** Shortens to at most `max` characters on a word boundary, ending with "…" when cut. */
export function truncate(s: string, max: number): string {
  const text = clean(s);
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  const lastSpace = room.lastIndexOf(' ');
  let cut = lastSpace >= max * 0.5 ? room.slice(0, lastSpace) : room;
  cut = cut.replace(/[\s,;:.\-–—|/]+$/u, '');
  return `${cut}…`;
}

/** Up to 200 characters of evidence text. */
export function snippet(s: string, max = 200): string {
  return truncate(s, max);
}

/** A window of text around `index` (up to 200 characters). */
export function snippetAround(text: string, index: number, length: number, max = 200): string {
  if (text.length <= max) return clean(text);
  const pad = Math.max(0, Math.floor((max - length) / 2));
  let start = Math.max(0, index - pad);
  const end = Math.min(text.length, start + max);
  start = Math.max(0, end - max);
  let s = text.slice(start, end);
  if (start > 0) s = s.replace(/^\S*\s/, '');
  if (end < text.length) s = s.replace(/\s\S*$/, '');
  return clean(s).slice(0, max);
}

/** An absolute http(s) URL for `href` against `base`, or null. */
export function absoluteUrl(href: string | null | undefined, base: string): string | null {
  const h = clean(href);
  if (!h) return null;
  return parseHttpUrl(h, base)?.href ?? null;
}

export const EMAIL_RE = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

export function isEmail(s: string): boolean {
  return /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/.test(s);
}
