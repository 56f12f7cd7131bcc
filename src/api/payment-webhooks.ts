import { takePaymentEvent } from '../domain/orders/payment-intake.ts';
import { AppError, payloadTooLarge } from '../errors/errors.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeep } from '../http/json-depth.ts';
import { readBody } from '../http/read-body.ts';
import type { RouteScope } from '../http/router.ts';
import { requirePayments } from '../payments/index.ts';
import { InvalidWebhookError } from '../domain/orders/payment-events.ts';
import { ForgedWebhookError } from '../domain/orders/payment-port.ts';
import type { Services } from '../services.ts';

const MAX_BYTES = 1 << 20;
const tooLarge = () => payloadTooLarge(MAX_BYTES, 'payload_too_large', 'A webhook body');

/**
 * `POST /webhooks/payments/{provider}`: the body is read with the shared reader (413 over 1 MiB)
 * and kept as raw text, refused when nested too deep before anything parses it; the signature is
 * checked over those raw bytes and the event's
 * fields against what a payment can carry (either fails → 400, nothing stored), then the event is
 * stored once and signalled into `order:{number}`.
 */
export function paymentWebhooks(router: RouteScope, services: Services): void {
  router.post('/webhooks/payments/{provider}', async function paymentWebhook(ctx) {
    const provider = requirePayments(services.payments);
    if (ctx.params.provider !== provider.name) throw new AppError('not_found', `No webhooks are taken for "${ctx.params.provider}".`);
    // The exact bytes: the signature is computed over them, so they are verified before any parsing.
    const raw = (await readBody(ctx.req, MAX_BYTES, tooLarge)).toString('utf8');
    if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) throw tooDeep('The webhook body');
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
  });
}
