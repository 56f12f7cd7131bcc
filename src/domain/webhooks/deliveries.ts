import type { Dispatcher } from 'undici';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { conflict, notFound, tooManyRequests } from '../../errors/errors.ts';
import { loadUndici } from '../../lib/undici.ts';
import { queueMail } from '../../mail/outbox.ts';
import { checkIpLiteral } from '../crawl/address-guard.ts';
import { RateLimitedError, takePoints } from '../quotas/rate-limit.ts';
import type { WebhookDeliveryTableRow } from '../tables.ts';
import { webhookDeliveryWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import { webhookMessageId, type AttemptOutcome, type WebhookEventType } from './events.ts';
import { getOwnEndpoint } from './endpoints.ts';
import type { AppSecrets } from '../../auth/secrets.ts';
import { openSecret } from './secret-box.ts';
import type { WorkflowStartQueue } from '../ports.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';

/** Each POST may take this long, answer included, so a slow endpoint cannot hold a worker. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** What we read of an answer (only its status matters). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface DeliveryDeps {
  db: Db;
  /** The app secrets the endpoints' signing secrets are sealed with. */
  secrets: AppSecrets;
  /** The crawler's guarded agent: connections to private addresses are refused when they connect. */
  agent: Dispatcher;
  allowPrivateNetworks: boolean;
  baseUrl: string;
  userAgent: string;
}

export interface AttemptInput {
  deliveryId: number;
  round: number;
  /** When it fails: try again this much later, or null when the retry window is over. */
  retryInMs: number | null;
}

/**
 * One attempt of a delivery: signs the event (Standard Webhooks: `webhook-id` stays the same on
 * every retry) and POSTs it through the guarded agent; 2xx is success. Every attempt is recorded.
 * The delivery's row stays locked during the POST, so two runs of one delivery cannot both send;
 * a delivery already delivered in this round is not sent again (the activity is idempotent).
 */
export async function attemptDelivery(deps: DeliveryDeps, input: AttemptInput): Promise<AttemptOutcome> {
  return deps.db.transaction(async (trx) => {
    const delivery = await trx('webhook_deliveries').where({ id: input.deliveryId }).forUpdate().first();
    if (!delivery || delivery.round !== input.round) return 'stopped';
    if (delivery.status === 'succeeded') return 'succeeded';
    if (delivery.status === 'failed') return 'failed';
    const endpoint = await trx('webhook_endpoints').where({ id: delivery.endpoint_id }).first();
    const event = await trx('webhook_events').where({ id: delivery.event_id }).first();
    if (!endpoint || !event) return 'stopped';
    if (!endpoint.enabled) {
      await trx('webhook_deliveries')
        .where({ id: delivery.id })
        .update({ status: 'failed', next_attempt_at: null, last_error: 'The endpoint is disabled.' });
      return 'stopped';
    }
    const body = JSON.stringify(event.payload);
    const started = Date.now();
    const result = await post(deps, endpoint.url, await openSecret(deps.secrets, endpoint.secret_box), webhookMessageId(event.id), body);
    const now = new Date();
    await trx('webhook_attempts').insert({
      delivery_id: delivery.id,
      round: input.round,
      ok: result.ok,
      status_code: result.status,
      error: result.error,
      duration_ms: Date.now() - started,
      attempted_at: now,
    });
    const firstAttemptAt = delivery.first_attempt_at ?? now;
    const common = {
      attempts: delivery.attempts + 1,
      last_status_code: result.status,
      last_error: result.error,
      first_attempt_at: firstAttemptAt,
      last_attempt_at: now,
    };
    if (result.ok) {
      await trx('webhook_deliveries')
        .where({ id: delivery.id })
        .update({ ...common, status: 'succeeded', succeeded_at: now, next_attempt_at: null });
      await trx('webhook_endpoints').where({ id: endpoint.id }).update({ failing_since: null });
      return 'succeeded';
    }
    const failingSince = endpoint.failing_since ?? now;
    if (!endpoint.failing_since) await trx('webhook_endpoints').where({ id: endpoint.id }).update({ failing_since: now });
    if (input.retryInMs !== null) {
      await trx('webhook_deliveries')
        .where({ id: delivery.id })
        .update({ ...common, next_attempt_at: new Date(now.getTime() + input.retryInMs) });
      return 'retry';
    }
    await trx('webhook_deliveries')
      .where({ id: delivery.id })
      .update({ ...common, status: 'failed', next_attempt_at: null });
    // Retried for the whole window without one success of the endpoint since: it is disabled.
    if (failingSince.getTime() <= firstAttemptAt.getTime()) await disableFailingEndpoint(trx, deps.baseUrl, endpoint.id, event.listing_id);
    return 'failed';
  });
}

interface PostResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

async function post(deps: DeliveryDeps, url: string, secret: string, messageId: string, body: string): Promise<PostResult> {
  const { request } = loadUndici();
  const timestamp = new Date();
  const signature = new Webhook(secret).sign(messageId, timestamp, body);
  const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
  try {
    const target = new URL(url);
    checkIpLiteral(target.hostname, deps.allowPrivateNetworks);
    const res = await request(target, {
      method: 'POST',
      dispatcher: deps.agent,
      signal,
      headers: {
        'content-type': 'application/json',
        'user-agent': deps.userAgent,
        'webhook-id': messageId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    });
    await drain(res.body);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return { ok, status: res.statusCode, error: ok ? null : `The endpoint answered ${res.statusCode}.` };
  } catch (err) {
    return { ok: false, status: null, error: describeFailure(err, signal) };
  }
}

async function drain(body: Dispatcher.ResponseData['body']): Promise<void> {
  let read = 0;
  for await (const chunk of body) {
    read += (chunk as Buffer).length;
    if (read > MAX_ANSWER_BYTES) {
      body.destroy();
      return;
    }
  }
}

function describeFailure(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return `No answer within ${DELIVERY_TIMEOUT_MS / 1000} seconds.`;
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.code === 'ECRAWL_ADDRESS_REFUSED' || e.cause?.code === 'ECRAWL_ADDRESS_REFUSED')
    return e.cause?.message ?? e.message ?? 'Address refused.';
  const code = e.cause?.code ?? e.code;
  if (code === 'ENOTFOUND') return 'The host name does not resolve.';
  if (code === 'ECONNREFUSED') return 'The connection was refused.';
  return `The request failed${code ? ` (${code})` : ''}.`;
}

/** Disables an endpoint that failed for the whole retry window, and tells its owner (a notification and a mail). */
async function disableFailingEndpoint(trx: Db, baseUrl: string, endpointId: number, listingId: number | null): Promise<void> {
  const [endpoint] = await trx('webhook_endpoints')
    .where({ id: endpointId, enabled: true })
    .update({ enabled: false, disabled_at: trx.fn.now(), disabled_reason: 'failing', updated_at: trx.fn.now() })
    .returning('*');
  if (!endpoint) return;
  const owner = await trx('users').where({ id: endpoint.user_id }).first('id', 'email', 'email_verified_at');
  if (!owner) return;
  const dedupeKey = `webhook-disabled:${endpoint.id}:${endpoint.disabled_at!.toISOString()}`;
  const subject = 'a webhook endpoint was turned off';
  const message = `We could not deliver events to ${endpoint.url} for 3 days, so we stopped sending to it. Fix the address or your server, then turn the endpoint back on.`;
  // Notifications are listed with their listing: the one the undelivered event was about.
  if (listingId !== null) {
    await trx('notifications')
      .insert({ user_id: owner.id, kind: 'webhook_disabled', listing_id: listingId, title: subject, body: message, dedupe_key: dedupeKey })
      .onConflict('dedupe_key')
      .ignore();
  }
  if (owner.email_verified_at) {
    await queueMail(trx, {
      to: owner.email,
      dedupeKey,
      subject: `Webhooks: ${subject}`,
      text: [message, '', `Your webhooks: ${baseUrl}/account/webhooks`].join('\n'),
    });
  }
}

export function toDeliveryView(row: WebhookDeliveryTableRow & { type: WebhookEventType }) {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.type,
    webhook_id: webhookMessageId(row.event_id),
    status: row.status,
    attempts: row.attempts,
    redeliveries: row.round,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    last_attempt_at: row.last_attempt_at?.toISOString() ?? null,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    succeeded_at: row.succeeded_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    workflow_id: `webhook-delivery:${row.id}`,
  };
}

export type WebhookDeliveryView = ReturnType<typeof toDeliveryView>;

const deliveryQuery = (db: Db) => db('webhook_deliveries as d').join('webhook_events as e', 'e.id', 'd.event_id').select('d.*', 'e.type');

/** An endpoint's deliveries, newest first; another account's endpoint is not found. */
export async function listDeliveries(db: Db, userId: number, endpointId: number, page: number, perPage: number) {
  await getOwnEndpoint(db, userId, endpointId);
  const found = await pageOf<WebhookDeliveryTableRow & { type: WebhookEventType }>(
    deliveryQuery(db).where('d.endpoint_id', endpointId).orderBy('d.id', 'desc'),
    db('webhook_deliveries').where({ endpoint_id: endpointId }),
    page,
    perPage,
  );
  return { ...found, items: found.items.map(toDeliveryView) };
}

/**
 * Sends a delivery again (a new round, the same `webhook-id`): a run still retrying it is
 * replaced. Its workflow's start is recorded with it and made once it is committed. Each one
 * costs the endpoint's receiver a request and us a workflow, so an endpoint takes at most
 * `perHour` redeliveries an hour (429 with Retry-After beyond).
 */
export async function redeliver(
  deps: { db: Db; workflowStarts: WorkflowStartQueue },
  userId: number,
  endpointId: number,
  deliveryId: number,
  perHour: number,
) {
  const { db, workflowStarts } = deps;
  const endpoint = await getOwnEndpoint(db, userId, endpointId);
  const { view, startId } = await db.transaction(async (trx) => {
    const delivery = await trx('webhook_deliveries').where({ id: deliveryId, endpoint_id: endpointId }).forUpdate().first();
    if (!delivery) throw notFound(`Delivery ${deliveryId} of webhook endpoint ${endpointId}`);
    if (!endpoint.enabled)
      throw conflict('webhook_endpoint_disabled', 'The endpoint is turned off: turn it on before sending it events again.');
    await takeRedelivery(db, endpointId, perHour);
    await trx('webhook_deliveries')
      .where({ id: deliveryId })
      .update({
        round: delivery.round + 1,
        status: 'pending',
        first_attempt_at: null,
        next_attempt_at: trx.fn.now(),
        succeeded_at: null,
        workflow_started_at: null,
      });
    const row = await deliveryQuery(trx).where('d.id', deliveryId).first();
    const event = await trx('webhook_events').where({ id: delivery.event_id }).first('listing_id');
    // The new round's run replaces a run of the older one still retrying.
    const input = { deliveryId, round: delivery.round + 1, listingId: event?.listing_id ?? null, replace: true };
    return {
      view: toDeliveryView(row),
      startId: await recordWorkflowStart(
        trx,
        { kind: 'webhook-delivery', workflowId: webhookDeliveryWorkflowId(deliveryId), input },
        workflowStarts.inlineLeaseMs(),
      ),
    };
  });
  await workflowStarts.startNow([startId]);
  return view;
}

async function takeRedelivery(db: Db, endpointId: number, perHour: number): Promise<void> {
  try {
    await takePoints(db, [{ limit: { name: 'webhook-redeliver', points: perHour, seconds: 3600 }, key: String(endpointId) }]);
  } catch (err) {
    if (!(err instanceof RateLimitedError)) throw err;
    throw tooManyRequests(
      `This endpoint was sent ${perHour} deliveries again within the hour, the most an endpoint takes; retry in ${err.retryAfterSeconds} s.`,
      err.retryAfterSeconds,
    );
  }
}
