import { validationFailed } from '../errors/errors.ts';

/** Deepest nesting of arrays and objects a JSON request body may have (REST bodies, MCP arguments). */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `max`, told from the text alone so that
 * nothing recursive (the string guard, zod, the SDK) ever walks a hostile value: ~8,000 levels
 * overflowed the stack (a 500). Strings are skipped with indexOf, so a megabyte of base64 costs
 * next to nothing. Text that is not JSON may pass; JSON.parse refuses it afterwards.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i);
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Index of the quote that closes the string opened at `open` (or the end of the text). */
function closingQuote(text: string, open: number): number {
  let i = open;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/** The 400 of a body nested too deep: `what` names it in the caller's terms. */
export function tooDeep(what = 'The request body', max = MAX_JSON_DEPTH) {
  return validationFailed(
    [{ path: '(body)', message: `Must not nest arrays and objects deeper than ${max} levels` }],
    `${what} nests arrays and objects deeper than ${max} levels.`,
  );
}
