import { dayText, weeksText, weekText } from '../time/week-words.ts';
import { formatCents, listingText, productName } from './line-text.ts';
import type { OrderLineRow, OrderRow } from './order-views.ts';
import type { EndedFact, EndedItem } from './refund-ended.ts';

/**
 * What a refund ended, in sentences for people: the same words on the owner's orders page, in the
 * refund mail, in the `order.refunded` webhook (`text`) and in the support shell.
 */

const SECTION_NAMES: Record<string, string> = { milestones: 'milestones', story: 'founder story', faqs: 'FAQs' };

const sectionName = (section: string) => SECTION_NAMES[section] ?? section;

/** `and`-joined: `ai`, `ai and data`, `ai, data and tools`. */
function list(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

/** `on 3 Jul 2026`, `on 7 days, 3 Jul 2026 to 9 Jul 2026`. */
function daysText(days: string[]): string {
  return days.length === 1 ? `on ${dayText(days[0]!)}` : `on ${days.length} days, ${dayText(days[0]!)} to ${dayText(days.at(-1)!)}`;
}

/** One ended thing in a sentence, about the line's listing by its name. */
export function endedText(fact: EndedFact, line: Pick<OrderLineRow, 'listing_id' | 'listing_name'>): string {
  const name = listingText(line) || 'The listing';
  switch (fact.kind) {
    case 'featured':
      return `${name} is no longer featured in the ${weeksText(fact.weeks)}.`;
    case 'categories':
      return `${name} no longer has its paid place in ${fact.categories.length === 1 ? 'the category' : 'the categories'} ${list(fact.categories)}.`;
    case 'billboard':
      return `The billboard for ${name} ${daysText(fact.days)} is canceled.`;
    case 'section':
      return `The ${sectionName(fact.section)} section of ${name} is locked again.`;
    case 'section_kept':
      return `The ${sectionName(fact.section)} section of ${name} stays unlocked: another paid order unlocked it too.`;
    case 'launch':
      return `The paid launch of ${name}${fact.week ? ` in ${weekText(fact.week)}` : ''} is canceled and its slot given back; ${name} is not launched, so you can choose how to launch it again.`;
    case 'still_live':
      return `${name} was already live, so it stays live: the refund does not take it off the site.`;
  }
}

/** The refund mail: how much, for which lines, and what each refund ended. */
export function refundMailText(
  order: Pick<OrderRow, 'number' | 'currency'>,
  amountCents: number,
  refunded: { line: Pick<OrderLineRow, 'product' | 'listing_id' | 'listing_name'>; ended: EndedItem[] }[],
): string {
  const rows = refunded.flatMap(({ line, ended }) => [
    `  ${productName(line.product)}${line.listing_id !== null ? ` for ${listingText(line)}` : ''}`,
    ...(ended.length ? ended.map((e) => `    ${e.text}`) : ['    Nothing it bought is still running, so nothing else changes.']),
  ]);
  return [
    `We refunded ${formatCents(amountCents, order.currency)} of your order ${order.number} to your payment method.`,
    '',
    'Refunded, and what the refund ended:',
    ...rows,
    '',
    'The rest of the order, if any, is unchanged. Nothing else is needed from you.',
  ].join('\n');
}
