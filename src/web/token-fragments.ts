import { raw, type SafeHtml } from './html.ts';

/** Stands for the CSRF token in a kept fragment; text no render of ours can contain otherwise. */
const TOKEN = 'csrf-token-of-this-person';

/** Fragments cut at the token, by what they are of (a kept page's slot) and its variant. */
const fragments = new WeakMap<object, Map<string, string[]>>();

/**
 * A person's fragment (a vote control) that differs from everyone else's only by the CSRF token:
 * rendered once per `of` (a slot of a kept page: the fragments live as long as the page is kept)
 * and `variant` (everything else the render reads, the person's state included), and the token
 * put in afterwards, since the same controls are filled into every signed-in person's copy.
 */
export function withToken(of: object, variant: string, token: string, render: (token: string) => SafeHtml): SafeHtml {
  let variants = fragments.get(of);
  if (!variants) fragments.set(of, (variants = new Map()));
  let pieces = variants.get(variant);
  if (!pieces) variants.set(variant, (pieces = render(TOKEN).value.split(TOKEN)));
  return raw(pieces.join(token));
}
