/**
 * What a refunded order line ended (`order_lines.ended`), as the orders page, the refund mail and
 * the `order.refunded` webhook read it. Only types: the rules are in refund-effects.ts, the words
 * in refund-words.ts.
 */

/**
 * One thing a line's refund ended: featured weeks (Mondays), category placements, billboard days,
 * a section locked again, a scheduled paid launch canceled (`week`: its Monday); or what it left as
 * it was and why: a section another paid line keeps unlocked, a listing already live.
 */
export type EndedFact =
  | { kind: 'featured'; weeks: string[] }
  | { kind: 'categories'; categories: string[] }
  | { kind: 'billboard'; days: string[] }
  | { kind: 'section'; section: string }
  | { kind: 'section_kept'; section: string }
  | { kind: 'launch'; week: string | null }
  | { kind: 'still_live' };

/** An EndedFact about a listing, with the sentence that says it. */
export type EndedItem = EndedFact & { listing_id: number; text: string };
