import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { takePaymentEvent } from '../domain/orders/payment-intake.ts';
import { AppError } from '../errors.ts';
import { requirePayments } from '../payments/index.ts';
import { ForgedWebhookError } from '../domain/orders/payment-port.ts';
import type { Services } from '../services.ts';

const PATH = /^\/webhooks\/payments\/([a-z]+)$/;
const MAX_BYTES = 1 << 20;

/**
 * `POST /webhooks/payments/{provider}`: the signature is checked over the raw body (forged → 400,
 * nothing stored), the event stored once, then signalled into `order:{number}`.
 */
export function paymentWebhooks(services: Services) {
  return async function paymentWebhook(ctx: Context, next: Next) {
    const match = PATH.exec(ctx.path);
    if (!match) return next();
    if (ctx.method !== 'POST') throw new AppError(405, 'method_not_allowed', 'Method not allowed', 'Webhooks are POSTed.');
    const provider = requirePayments(services.payments);
    if (match[1] !== provider.name) throw new AppError(404, 'not_found', 'Not found', `No webhooks are taken for "${match[1]}".`);
    const raw = await readRaw(ctx.req);
    let event;
    try {
      event = provider.verifyWebhook(raw, ctx.get('Stripe-Signature') || undefined);
    } catch (err) {
      if (err instanceof ForgedWebhookError)
        throw new AppError(400, 'invalid_signature', 'Invalid signature', 'The webhook signature does not verify.');
      throw new AppError(400, 'invalid_webhook', 'Invalid webhook', 'The webhook body is not an event.');
    }
    const result = await takePaymentEvent(services, provider.name, event, JSON.parse(raw));
    ctx.state.log?.info({ event: event.id, type: event.type, order: result.order, duplicate: result.duplicate }, 'payment webhook');
    ctx.body = { received: true, duplicate: result.duplicate, order: result.order };
  };
}

async function readRaw(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BYTES) throw new AppError(413, 'payload_too_large', 'Payload too large', 'Webhooks are limited to 1 MiB.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
