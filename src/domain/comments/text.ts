import { sha256Hex } from '../../lib/hash.ts';
import { parseHttpUrl } from '../../lib/urls.ts';

/** What a comment body may be: plain text with line breaks, at most this many characters. */
export const COMMENT_MAX_CHARS = 5000;

/** Minutes after posting during which the author may edit a comment. */
export const EDIT_WINDOW_MINUTES = 10;

/** One run of a comment's text: plain words, or an address that becomes a link. */
export type TextPart = { text: string } | { url: string; text: string };

// An http(s) address up to the next space; trailing punctuation belongs to the sentence.
const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"]+/gi;
const TRAILING = /[.,;:!?'")\]}]+$/;

/**
 * The text split into words and links, the one reading of "a link in a comment": the link limit
 * counts these, and the page turns these (and only these) into anchors.
 */
export function textParts(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const candidate = match[0].replace(TRAILING, '');
    const url = parseHttpUrl(candidate);
    if (!url) continue;
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ url: url.href, text: candidate });
    last = match.index + candidate.length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** How many links the text carries. */
export const linkCount = (text: string): number => textParts(text).filter((p) => 'url' in p).length;

/**
 * The body as stored: line endings as `\n`, no space at the ends of lines, at most two line
 * breaks in a row, trimmed. What remains is what people read.
 */
export function normaliseBody(body: string): string {
  return body
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The fingerprint "the same text" is judged by: case, spacing and punctuation do not make a
 * copy-pasted comment new.
 */
export function bodyHash(body: string): string {
  const folded = body
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s\p{P}]+/gu, ' ')
    .trim();
  return sha256Hex(folded);
}
