import type { SafeHtml } from './html.ts';

/** Stands for the CSRF token in a kept fragment; text no render of ours can contain otherwise. */
const TOKEN = 'csrf-token-of-this-person';

/** Fragments cut at the token, encoded, by what they are of (a kept page's slot) and its variant. */
const fragments = new WeakMap<object, Map<string, Buffer[]>>();

/**
 * The encoded pieces around the CSRF token of a fragment (a vote control) that differs from
 * everyone else's only by that token: rendered once per `of` (a slot of a kept page: the pieces
 * live as long as the page is kept) and `variant` (everything else the render reads, the person's
 * state included), since the same controls are filled into every signed-in person's copy.
 */
export function tokenPieces(of: object, variant: string, render: (token: string) => SafeHtml): Buffer[] {
  let variants = fragments.get(of);
  if (!variants) fragments.set(of, (variants = new Map()));
  let pieces = variants.get(variant);
  if (!pieces)
    variants.set(
      variant,
      (pieces = render(TOKEN)
        .value.split(TOKEN)
        .map((piece) => Buffer.from(piece))),
    );
  return pieces;
}
