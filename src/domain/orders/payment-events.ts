import { z } from 'zod';

/**
 * The largest amount a payment event may carry: the order tables keep cents in PostgreSQL
 * `integer` columns. Stripe's own ceiling (99,999,999 cents for USD) is far below it.
 */
export const MAX_AMOUNT_CENTS = 2_147_483_647;

/** Printable ASCII, as every Stripe id is: no control characters reach a log line or a row. */
const PRINTABLE = /^[\x20-\x7e]+$/;

const printable = (max: number) => z.string().min(1).max(max).regex(PRINTABLE, 'must be printable characters');

/** An amount in cents a payment can carry: a non-negative integer within the tables' range. */
export const amountCents = z.number().int().min(0).max(MAX_AMOUNT_CENTS);

/** True for an amount a refund or a payment row can take (events stored before validation may hold others). */
export const isPayableAmount = (value: unknown): value is number => amountCents.safeParse(value).success;

/** A payment intent's fields that orders read (other fields pass through unchecked). */
const paymentIntent = z.looseObject({
  object: z.literal('payment_intent'),
  id: printable(255),
  amount: amountCents.optional(),
  amount_received: amountCents.optional(),
  currency: z.string().regex(/^[a-zA-Z]{3}$/, 'must be a three-letter currency code'),
  metadata: z.looseObject({ order_number: printable(255).optional(), method: printable(255).optional() }).optional(),
  payment_method_types: z.array(printable(255)).max(50).optional(),
});

/**
 * A Stripe-format event as it reaches the webhook, checked before anything is stored. Objects
 * other than payment intents (charges, refunds...) are kept but their fields are not read.
 */
const webhookEvent = z.looseObject({
  id: printable(255),
  type: printable(255),
  data: z.looseObject({ object: z.looseObject({ object: z.string().optional() }) }),
});

export type WebhookEvent = { id: string; type: string; data: { object: Record<string, unknown> } };

/** A payload that verified but is not an event orders can take (→ 400, nothing stored). */
export class InvalidWebhookError extends Error {
  readonly errors: { path: string; message: string }[];
  constructor(errors: { path: string; message: string }[]) {
    super(`invalid payment event: ${errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}`);
    this.errors = errors;
  }
}

/** Checks a parsed event; throws InvalidWebhookError listing each failing field. */
export function parseWebhookEvent(event: unknown): WebhookEvent {
  const parsed = webhookEvent.safeParse(event);
  if (!parsed.success) throw invalid(parsed.error.issues, []);
  const object = parsed.data.data.object;
  if (object.object === 'payment_intent') {
    const intent = paymentIntent.safeParse(object);
    if (!intent.success) throw invalid(intent.error.issues, ['data', 'object']);
  }
  return parsed.data as WebhookEvent;
}

function invalid(issues: z.core.$ZodIssue[], prefix: PropertyKey[]): InvalidWebhookError {
  return new InvalidWebhookError(issues.map((i) => ({ path: [...prefix, ...i.path].map(String).join('.'), message: i.message })));
}
