import type { Db } from '../../db/knex.ts';
import { appError, conflict, notFound } from '../../errors/errors.ts';
import { parseHttpUrl } from '../../lib/urls.ts';
import { assertCrawlableUrl } from '../crawl/crawlable-url.ts';
import type { WebhookEndpointTableRow } from '../tables.ts';
import type { WebhookEventType } from './events.ts';
import type { AppSecrets } from '../../auth/secrets.ts';
import { newWebhookSecret, sealSecret } from './secret-box.ts';

/** Endpoints one account may have. */
export const MAX_WEBHOOK_ENDPOINTS = 10;

export function toEndpointView(row: WebhookEndpointTableRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type WebhookEndpointView = ReturnType<typeof toEndpointView>;

/**
 * Checks an endpoint address: https (plain http only where private networks are allowed, i.e.
 * development and tests), no credentials, and not a private or special address (the crawler's
 * guard; checked again when each delivery connects).
 */
export async function assertWebhookUrl(url: string, allowPrivateNetworks: boolean): Promise<string> {
  const parsed = parseHttpUrl(url);
  if (!parsed) throw appError('invalid_url', `"${url}" is not an https address without a user name or password.`);
  if (parsed.protocol !== 'https:' && !allowPrivateNetworks)
    throw appError('invalid_url', `"${url}" is not an https address: webhooks are only sent over https.`);
  await assertCrawlableUrl(parsed.href, allowPrivateNetworks);
  return parsed.href;
}

/** One of the user's endpoints; another account's endpoint is not found. */
export async function getOwnEndpoint(db: Db, userId: number, endpointId: number): Promise<WebhookEndpointTableRow> {
  const row = await db('webhook_endpoints').where({ id: endpointId, user_id: userId }).first();
  if (!row) throw notFound(`Webhook endpoint ${endpointId}`);
  return row;
}

export interface NewEndpoint {
  url: string;
  events: WebhookEventType[];
  description?: string | undefined;
}

/** Adds an endpoint; the answer carries its signing secret, the only time it is shown. */
export async function createEndpoint(
  { db, secrets }: { db: Db; secrets: AppSecrets },
  userId: number,
  input: NewEndpoint,
  allowPrivateNetworks: boolean,
) {
  const url = await assertWebhookUrl(input.url, allowPrivateNetworks);
  const secret = newWebhookSecret();
  const secretBox = await sealSecret(secrets, secret);
  return db.transaction(async (trx) => {
    // Counted under the user's row lock, so two creations at once cannot pass the limit.
    await trx('users').where({ id: userId }).forUpdate().first('id');
    const [{ count }] = await trx('webhook_endpoints').where({ user_id: userId }).count({ count: '*' });
    if (Number(count) >= MAX_WEBHOOK_ENDPOINTS) {
      throw conflict('webhook_endpoint_limit', `You have ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints, the most one account may have.`);
    }
    const [row] = await trx('webhook_endpoints')
      .insert({ user_id: userId, url, description: input.description ?? null, events: [...new Set(input.events)], secret_box: secretBox })
      .returning('*');
    return { ...toEndpointView(row!), secret };
  });
}

export async function listEndpoints(db: Db, userId: number): Promise<WebhookEndpointView[]> {
  const rows = await db('webhook_endpoints').where({ user_id: userId }).orderBy('id', 'asc');
  return rows.map(toEndpointView);
}

export interface EndpointChanges {
  events?: WebhookEventType[] | undefined;
  enabled?: boolean | undefined;
  description?: string | null | undefined;
}

/** Changes events, description or enabled; enabling again clears the failure record. */
export async function updateEndpoint(db: Db, userId: number, endpointId: number, changes: EndpointChanges): Promise<WebhookEndpointView> {
  const row = await getOwnEndpoint(db, userId, endpointId);
  if (changes.events === undefined && changes.enabled === undefined && changes.description === undefined) {
    throw appError('nothing_to_change', 'Give events, enabled or description to change.');
  }
  const update: Partial<
    Pick<WebhookEndpointTableRow, 'events' | 'description' | 'enabled' | 'disabled_at' | 'disabled_reason' | 'failing_since'>
  > = {};
  if (changes.events !== undefined) update.events = [...new Set(changes.events)];
  if (changes.description !== undefined) update.description = changes.description;
  if (changes.enabled === true && !row.enabled)
    Object.assign(update, { enabled: true, disabled_at: null, disabled_reason: null, failing_since: null });
  if (changes.enabled === false && row.enabled)
    Object.assign(update, { enabled: false, disabled_at: new Date(), disabled_reason: 'by_owner' });
  const [updated] = await db('webhook_endpoints')
    .where({ id: endpointId, user_id: userId })
    .update({ ...update, updated_at: db.fn.now() })
    .returning('*');
  return toEndpointView(updated!);
}

export async function deleteEndpoint(db: Db, userId: number, endpointId: number): Promise<void> {
  const deleted = await db('webhook_endpoints').where({ id: endpointId, user_id: userId }).delete();
  if (deleted === 0) throw notFound(`Webhook endpoint ${endpointId}`);
}

/** A new secret for the endpoint, shown once; deliveries from now on are signed with it. */
export async function rotateSecret({ db, secrets }: { db: Db; secrets: AppSecrets }, userId: number, endpointId: number) {
  await getOwnEndpoint(db, userId, endpointId);
  const secret = newWebhookSecret();
  const [row] = await db('webhook_endpoints')
    .where({ id: endpointId, user_id: userId })
    .update({ secret_box: await sealSecret(secrets, secret), updated_at: db.fn.now() })
    .returning('*');
  return { ...toEndpointView(row!), secret };
}
