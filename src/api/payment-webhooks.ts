import type { IncomingMessage } from 'node:http';
import type { Context, Next } from 'koa';
import { takePaymentEvent } from '../domain/orders/payment-intake.ts';
import { AppError } from '../errors.ts';
import { requirePayments } from '../payments/index.ts';
import { InvalidWebhookError } from '../domain/orders/payment-events.ts';
import { ForgedWebhookError } from '../domain/orders/payment-port.ts';
import type { Services } from '../services.ts';

const PATH = /^\/webhooks\/payments\/([a-z]+)$/;
const MAX_BYTES = 1 << 20;

/**
 * `POST /webhooks/payments/{provider}`: the signature is checked over the raw body and the event's
 * fields against what a payment can carry (either fails → 400, nothing stored), then the event is
 * stored once and signalled into `order:{number}`.
 */
export function paymentWebhooks(services: Services) {
  return async function paymentWebhook(ctx: Context, next: Next) {
    const match = PATH.exec(ctx.path);
    if (!match) return next();
    if (ctx.method !== 'POST') throw new AppError('method_not_allowed', 'Webhooks are POSTed.');
    const provider = requirePayments(services.payments);
    if (match[1] !== provider.name) throw new AppError('not_found', `No webhooks are taken for "${match[1]}".`);
    const raw = await readRaw(ctx.req);
    let event;
    try {
      event = provider.verifyWebhook(raw, ctx.get('Stripe-Signature') || undefined);
    } catch (err) {
      if (err instanceof ForgedWebhookError) throw new AppError('invalid_signature', 'The webhook signature does not verify.');
      if (err instanceof InvalidWebhookError)
        throw new AppError('invalid_webhook', 'The event has fields no payment can carry.', { errors: err.errors });
      throw new AppError('invalid_webhook', 'The webhook body is not an event.');
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
    if (size > MAX_BYTES) throw new AppError('payload_too_large', 'Webhooks are limited to 1 MiB.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
