import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import { webhookDeliveryWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import type { WebhookEndpointTableRow } from './tables.ts';

/**
 * Webhook health for the site team: which owners' endpoints fail, since when, and what they
 * answered. Never the signing secret, never an event's payload, and never the whole address: the
 * path and query of a webhook address often are its credential (chat and automation services put
 * a token there), so staff see the host and how long the rest is (docs/site-team.md).
 *
 * Endpoints belong to accounts, not sites; an endpoint is on a site when its owner has a listing
 * or an order there (the events it hears are about those).
 */

/** The address as staff see it: scheme and host (with a port), and only the length of the rest. */
export function maskedUrl(url: string) {
  const parsed = URL.parse(url);
  if (!parsed) return { host: '', path_length: url.length, masked_url: '…' };
  const rest = parsed.pathname.length + parsed.search.length;
  const tail = rest <= 1 ? '/' : `/… (${rest} characters)`;
  return { host: parsed.host, path_length: rest, masked_url: `${parsed.protocol}//${parsed.host}${tail}` };
}

/** Our own error text of a try, with the address (if it ever appears in it) masked. */
function safeError(error: string | null, url: string): string | null {
  if (error === null) return null;
  const parsed = URL.parse(url);
  let text = error.replaceAll(url, maskedUrl(url).masked_url);
  if (parsed && parsed.pathname.length > 1) text = text.replaceAll(parsed.pathname + parsed.search, '/…');
  return text;
}

const onSite = (db: Db, siteId: number) =>
  db.raw(
    '(exists (select 1 from listings l where l.owner_id = e.user_id and l.site_id = ?) or exists (select 1 from orders o where o.user_id = e.user_id and o.site_id = ?))',
    [siteId, siteId],
  );

/** The last success of the endpoint's tries, the failures after it, and the latest failures. */
async function failureRecord(db: Db, endpoint: Pick<WebhookEndpointTableRow, 'id' | 'url'>, lastErrors: number) {
  const tries = () =>
    db('webhook_attempts as a').join('webhook_deliveries as d', 'd.id', 'a.delivery_id').where('d.endpoint_id', endpoint.id);
  const lastOk = await tries().where('a.ok', true).max<{ at: Date | null }[]>('a.attempted_at as at').first();
  const failed = tries().where('a.ok', false);
  if (lastOk?.at) failed.where('a.attempted_at', '>', lastOk.at);
  const [{ n }] = await failed.clone().count<{ n: string }[]>('* as n');
  const errors = await tries()
    .where('a.ok', false)
    .orderBy('a.attempted_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(lastErrors)
    .select('a.status_code', 'a.error', 'a.attempted_at');
  return {
    failures_in_a_row: Number(n),
    last_success_at: lastOk?.at ? new Date(lastOk.at).toISOString() : null,
    last_errors: errors.map((e) => ({
      status_code: e.status_code,
      error: safeError(e.error, endpoint.url),
      at: new Date(e.attempted_at).toISOString(),
    })),
  };
}

type EndpointWithOwner = WebhookEndpointTableRow & { owner_email: string };

function endpointView(row: EndpointWithOwner) {
  return {
    id: row.id,
    owner_email: row.owner_email,
    ...maskedUrl(row.url),
    events: row.events,
    enabled: row.enabled,
    failing_since: row.failing_since?.toISOString() ?? null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
  };
}

const endpointColumns = [
  'e.id',
  'e.user_id',
  'e.url',
  'e.events',
  'e.enabled',
  'e.failing_since',
  'e.disabled_at',
  'e.disabled_reason',
  'e.created_at',
];

/** This site's endpoints that fail or are turned off, those failing longest first. */
export async function unhealthyEndpoints(db: Db, siteId: number, limit: number) {
  const rows: EndpointWithOwner[] = await db('webhook_endpoints as e')
    .join('users as u', 'u.id', 'e.user_id')
    .where((q) => q.whereNotNull('e.failing_since').orWhere('e.enabled', false))
    .where(onSite(db, siteId))
    .orderByRaw('coalesce(e.failing_since, e.disabled_at) asc nulls last, e.id asc')
    .limit(limit)
    .select(...endpointColumns, 'u.email as owner_email');
  const items = [];
  for (const row of rows) items.push({ ...endpointView(row), ...(await failureRecord(db, row, 3)) });
  return items;
}

/** One endpoint of this site with its latest deliveries; another site's endpoint is not found. */
export async function endpointHealth(db: Db, siteId: number, endpointId: number, deliveries: number) {
  const row: EndpointWithOwner | undefined = await db('webhook_endpoints as e')
    .join('users as u', 'u.id', 'e.user_id')
    .where('e.id', endpointId)
    .where(onSite(db, siteId))
    .first(...endpointColumns, 'u.email as owner_email');
  if (!row) throw notFound(`Webhook endpoint ${endpointId}`);
  const recent = await db('webhook_deliveries as d')
    .join('webhook_events as ev', 'ev.id', 'd.event_id')
    .where('d.endpoint_id', endpointId)
    .orderBy('d.id', 'desc')
    .limit(deliveries)
    .select(
      'd.id',
      'ev.type',
      'd.status',
      'd.attempts',
      'd.last_status_code',
      'd.last_error',
      'd.last_attempt_at',
      'd.next_attempt_at',
      'd.created_at',
    );
  return {
    ...endpointView(row),
    ...(await failureRecord(db, row, 10)),
    deliveries: recent.map((d) => ({
      id: d.id,
      event_type: d.type,
      status: d.status,
      attempts: d.attempts,
      last_status_code: d.last_status_code,
      last_error: safeError(d.last_error, row.url),
      last_attempt_at: d.last_attempt_at ? new Date(d.last_attempt_at).toISOString() : null,
      next_attempt_at: d.next_attempt_at ? new Date(d.next_attempt_at).toISOString() : null,
      created_at: new Date(d.created_at).toISOString(),
      workflow_id: webhookDeliveryWorkflowId(d.id),
    })),
  };
}
