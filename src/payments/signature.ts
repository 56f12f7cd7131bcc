import { createHmac } from 'node:crypto';
import { parseWebhookEvent, type WebhookEvent } from '../domain/orders/payment-events.ts';
import { ForgedWebhookError } from '../domain/orders/payment-port.ts';
import { stripeSdk } from './stripe-sdk.ts';

/** Seconds a signed webhook stays acceptable (Stripe's default tolerance). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `Stripe-Signature: t=...,v1=HMAC-SHA256(secret, t + '.' + payload)`, as Stripe signs its webhooks. */
export function signWebhook(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/**
 * The one verification path of both adapters: the official SDK checks the signature and that the
 * timestamp is not stale, so a test webhook that passes here is one Stripe's format accepts. The
 * SDK takes any timestamp ahead of the clock; one further ahead than the tolerance is refused
 * like a stale one (a signature made for later use). Then the event's fields are checked
 * (InvalidWebhookError) before anything is stored.
 */
export function verifySignedEvent(rawBody: string, header: string | undefined, secret: string, now = Date.now()): WebhookEvent {
  if (!header) throw new ForgedWebhookError('missing Stripe-Signature');
  let event: unknown;
  try {
    event = stripeSdk().webhooks.constructEvent(rawBody, header, secret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (err) {
    throw new ForgedWebhookError((err as Error).message);
  }
  if (signedAt(header) * 1000 > now + SIGNATURE_TOLERANCE_SECONDS * 1000)
    throw new ForgedWebhookError('timestamp outside the tolerance zone');
  return parseWebhookEvent(event);
}

/** The header's timestamp read as the SDK reads it (the last `t=` item, parseInt), so both judge the same value. */
function signedAt(header: string): number {
  const items = header.split(',').filter((item) => item.split('=')[0] === 't');
  return parseInt(items.at(-1)?.split('=')[1] ?? '', 10);
}
