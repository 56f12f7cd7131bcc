/** The test provider's cards (Stripe's well-known test numbers). */

export interface CardDetails {
  number: string;
  expiry: string;
  cvc: string;
}

export type CardOutcome =
  | { status: 'succeeded'; message: null }
  | { status: 'declined'; message: string }
  | { status: 'requires_action'; message: null };

const SUCCEEDS = '4242424242424242';
const DECLINED = '4000000000000002';
const NEEDS_AUTHENTICATION = '4000002760003184';
/** Stripe's "refund fails" card: the payment succeeds, refunds to it are refused (at once, here). */
const REFUNDS_REFUSED = '4000000000005126';

/** A card number the pay page offers in test mode, and what paying with it does. */
export interface TestCard {
  /** Grouped in fours, as people type it. */
  number: string;
  outcome: 'succeeds' | 'declined' | 'requires_action' | 'refunds_refused';
  /** What happens, in words. */
  result: string;
}

/** The cards the test provider's pay page lists, so anyone trying the service can pay without looking them up. */
export const TEST_CARDS: readonly TestCard[] = [
  { number: grouped(SUCCEEDS), outcome: 'succeeds', result: 'the payment succeeds' },
  { number: grouped(DECLINED), outcome: 'declined', result: 'the card is declined' },
  { number: grouped(NEEDS_AUTHENTICATION), outcome: 'requires_action', result: 'asks for 3-D Secure authentication first' },
  { number: grouped(REFUNDS_REFUSED), outcome: 'refunds_refused', result: 'the payment succeeds; refunds to it are refused' },
];

function grouped(digits: string): string {
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** True for the card whose refunds the test provider refuses. */
export const refusesRefunds = (card: CardDetails): boolean => card.number.replace(/[\s-]/g, '') === REFUNDS_REFUSED;

/** Luhn checksum of a card number (digits only). */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** An expiry `MM/YY` (or `MM / YYYY`) not in the past. */
function expiryValid(expiry: string, now: Date): boolean {
  const m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!m) return false;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return false;
  return year * 12 + month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

/** What the simulated card network answers: 4242… succeeds, …0002 is declined, …3184 needs authentication. */
export function cardOutcome(card: CardDetails, now = new Date()): CardOutcome {
  const digits = card.number.replace(/[\s-]/g, '');
  if (!/^\d{13,19}$/.test(digits) || !luhn(digits)) return { status: 'declined', message: 'The card number is not valid.' };
  if (!expiryValid(card.expiry, now)) return { status: 'declined', message: 'The expiry date is not valid or has passed.' };
  if (!/^\d{3,4}$/.test(card.cvc.trim())) return { status: 'declined', message: 'The CVC must be 3 or 4 digits.' };
  if (digits === DECLINED) return { status: 'declined', message: 'Your card was declined. Try another card or method.' };
  if (digits === NEEDS_AUTHENTICATION) return { status: 'requires_action', message: null };
  return { status: 'succeeded', message: null };
}
