import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { ForgedWebhookError } from '../domain/orders/payment-port.ts';

/** Seconds a signed webhook stays acceptable (Stripe's default tolerance). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `Stripe-Signature: t=...,v1=HMAC-SHA256(secret, t + '.' + payload)`, as Stripe signs its webhooks. */
export function signWebhook(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${v1}`;
}

/**
 * The one verification path of both adapters: the official SDK checks the signature and the
 * timestamp tolerance, so a test webhook that passes here is one Stripe's format accepts.
 */
export function verifySignedEvent(rawBody: string, header: string | undefined, secret: string) {
  if (!header) throw new ForgedWebhookError('missing Stripe-Signature');
  try {
    return Stripe.webhooks.constructEvent(rawBody, header, secret, SIGNATURE_TOLERANCE_SECONDS) as unknown as {
      id: string;
      type: string;
      data: { object: Record<string, unknown> };
    };
  } catch (err) {
    throw new ForgedWebhookError((err as Error).message);
  }
}
