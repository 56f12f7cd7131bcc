import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { temporalClient, workflowResult } from '../helpers/workflows.ts';

/**
 * Owners' webhooks over REST and MCP, delivered by real workflows to loopback
 * receivers: retries with the same webhook-id and a valid Standard Webhooks signature,
 * redelivery, an endpoint turned off after the retry window (short durations as the workflow's
 * inputs), and the refusals.
 */

let env: TestEnv;
let mcp: ReturnType<typeof mcpParity>;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {
    // Waits of 150 ms, 450 ms, 1 s, 1 s...; a delivery is retried for 4 s.
    WEBHOOK_RETRY_FIRST_MS: '150',
    WEBHOOK_RETRY_MAX_MS: '1000',
    WEBHOOK_RETRY_WINDOW_MS: '4000',
    WORKFLOW_START_SWEEP_MS: '100',
  });
  await env.startWorkers();
  mcp = mcpParity(env);
});
test.after.always(async () => {
  await mcp?.close();
  await env?.close();
});

const db = () => env.services.db;

async function ownerWithListing(name: string) {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), {
    name,
    ownerId: owner.userId,
    url: `https://${name.toLowerCase().replace(/\W+/g, '-')}.example/`,
  });
  return { ...owner, listingId };
}

async function createEndpoint(key: string, url: string, events = ['update.published']) {
  const res = await api(env, 'POST', '/me/webhooks', { key, body: { url, events, description: 'test receiver' } });
  if (res.status !== 201) throw new Error(`create_webhook_endpoint answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { id: number; secret: string; url: string; events: string[]; enabled: boolean };
}

const postUpdate = (key: string, listingId: number, title: string) =>
  api(env, 'POST', `/me/listings/${listingId}/updates`, { key, body: { title, body: 'Something new.' } });

/** Verifies a received request with the standardwebhooks verifier; returns the payload. */
function verified(secret: string, r: { headers: Record<string, unknown>; body: string }) {
  const headers = {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(r.body, headers) as { type: string; created_at: string; data: any };
}

test('a receiver that fails twice then accepts gets three tries with one webhook-id and valid signatures; each try is recorded', async (t) => {
  const receiver = await startReceiver((n) => (n <= 2 ? 503 : 204));
  t.teardown(() => receiver.close());
  const owner = await ownerWithListing('Retry Rockets');
  const endpoint = await createEndpoint(owner.key, receiver.url);
  t.regex(endpoint.secret, /^whsec_[A-Za-z0-9+/=]{32}$/);
  t.true(endpoint.enabled);

  t.is((await postUpdate(owner.key, owner.listingId, 'We shipped')).status, 201);
  await eventually('the third try', () => receiver.received.length >= 3 && receiver.received[2]!.answered === 204);
  const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
  t.is(ids.size, 1, 'the same webhook-id on every try');
  for (const r of receiver.received) {
    t.regex(String(r.headers['webhook-signature']), /^v1,[A-Za-z0-9+/=]+$/);
    const payload = verified(endpoint.secret, r);
    t.is(payload.type, 'update.published');
    t.is(payload.data.update.title, 'We shipped');
    t.is(payload.data.listing.id, owner.listingId);
    t.is(payload.data.listing.name, 'Retry Rockets');
  }
  t.throws(
    () =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        receiver.received[0]!.body,
        receiver.received[0]!.headers as Record<string, string>,
      ),
    {
      message: /signature/i,
    },
  );

  const deliveries = await eventually('the delivery marked delivered', async () => {
    const res = await api(env, 'GET', `/me/webhooks/${endpoint.id}/deliveries`, { key: owner.key });
    return res.body.items[0]?.status === 'succeeded' ? res.body : null;
  });
  t.is(deliveries.total, 1);
  const [delivery] = deliveries.items;
  t.like(delivery, {
    event_type: 'update.published',
    status: 'succeeded',
    attempts: 3,
    last_status_code: 204,
    next_attempt_at: null,
    redeliveries: 0,
  });
  t.is(delivery.webhook_id, receiver.received[0]!.headers['webhook-id']);
  t.is(delivery.workflow_id, `webhook-delivery:${delivery.id}`);
  const attempts = await db()('webhook_attempts').where({ delivery_id: delivery.id }).orderBy('id');
  t.deepEqual(
    attempts.map((a) => [a.ok, a.status_code]),
    [
      [false, 503],
      [false, 503],
      [true, 204],
    ],
  );
  // The workflow is searchable by the listing.
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const handle = client.workflow.getHandle(delivery.workflow_id);
  t.deepEqual((await handle.describe()).searchAttributes.ListingId, [owner.listingId]);
  t.like(await handle.result(), { outcome: 'succeeded', tries: 3 });

  // Redeliver: the same event again, same webhook-id, signed anew.
  const again = await api(env, 'POST', `/me/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`, { key: owner.key });
  t.is(again.status, 200, JSON.stringify(again.body));
  t.like(again.body, { id: delivery.id, status: 'pending', redeliveries: 1 });
  await eventually('the redelivery', () => receiver.received.length === 4);
  t.is(receiver.received[3]!.headers['webhook-id'], delivery.webhook_id);
  t.is(verified(endpoint.secret, receiver.received[3]!).type, 'update.published');
  await eventually(
    'the redelivery recorded',
    async () => (await db()('webhook_deliveries').where({ id: delivery.id }).first())!.status === 'succeeded',
  );
  t.is(await countOk(delivery.id), 2, 'one success per round');
});

const countOk = async (deliveryId: number) =>
  Number((await db()('webhook_attempts').where({ delivery_id: deliveryId, ok: true }).count({ n: '*' }))[0]!.n);

test('an endpoint failing for the whole window is turned off and its owner told; then it gets no deliveries until turned on', async (t) => {
  const receiver = await startReceiver(() => 500);
  t.teardown(() => receiver.close());
  const owner = await ownerWithListing('Failing Falcons');
  await db()('users').where({ id: owner.userId }).update({ email_verified_at: db().fn.now() });
  const endpoint = await createEndpoint(owner.key, receiver.url);
  t.is((await postUpdate(owner.key, owner.listingId, 'Nobody hears this')).status, 201);

  const ended = await eventually(
    'the endpoint turned off',
    async () => {
      const res = await api(env, 'GET', '/me/webhooks', { key: owner.key });
      const found = res.body.items.find((e: { id: number }) => e.id === endpoint.id);
      return found.enabled ? null : found;
    },
    { timeoutMs: 30_000 },
  );
  t.like(ended, { enabled: false, disabled_reason: 'failing' });
  t.truthy(ended.disabled_at);
  const tries = receiver.received.length;
  t.true(tries >= 3, `tried ${tries} times within the window`);
  const times = await db()('webhook_attempts as a')
    .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .where('d.endpoint_id', endpoint.id)
    .orderBy('a.id')
    .pluck('a.attempted_at');
  t.is(times.length, tries, 'every try recorded');
  // The waits grow (150 ms, 450 ms, then the 1 s ceiling), all within the 4 s window.
  const waits = times.slice(1).map((at: Date, i: number) => at.getTime() - times[i]!.getTime());
  t.true(waits[0]! >= 150 && waits[1]! >= 450, JSON.stringify(waits));
  t.true(times.at(-1)!.getTime() - times[0]!.getTime() <= 4_000 + 2_000, JSON.stringify(waits));
  const { body } = await api(env, 'GET', `/me/webhooks/${endpoint.id}/deliveries`, { key: owner.key });
  t.like(body.items[0], { status: 'failed', attempts: tries, last_status_code: 500, next_attempt_at: null });

  const notice = await db()('notifications').where({ user_id: owner.userId, kind: 'webhook_disabled' }).first();
  t.truthy(notice);
  t.regex(notice!.body!, /for 3 days/);
  const mail = await db()('mail_outbox').where({ to_address: owner.email }).where('subject', 'like', 'Webhooks:%').first();
  t.truthy(mail);
  t.true(mail!.body_text.includes('/account/webhooks'));

  // Off: a new event makes no delivery for it; redelivering is refused until it is on again.
  const still = await postUpdate(owner.key, owner.listingId, 'Still nobody');
  t.is(still.status, 201);
  // The update's fan-out reports the event apart from the request: let it end while the endpoint
  // is off, or turning it on below could come first.
  await workflowResult(env, still.body.workflow_id);
  const refused = await api(env, 'POST', `/me/webhooks/${endpoint.id}/deliveries/${body.items[0].id}/redeliver`, { key: owner.key });
  t.is(refused.status, 409);
  t.is(refused.body.code, 'webhook_endpoint_disabled');
  const on = await api(env, 'PATCH', `/me/webhooks/${endpoint.id}`, { key: owner.key, body: { enabled: true } });
  t.like(on.body, { enabled: true, disabled_reason: null, failing_since: null });
  t.is(Number((await db()('webhook_deliveries').where({ endpoint_id: endpoint.id }).count({ n: '*' }))[0]!.n), 1);
});

test('endpoints: list without secrets, change events, rotate the secret, delete; over REST and MCP alike', async (t) => {
  const owner = await ownerWithListing('Crud Cranes');
  const receiver = await startReceiver(() => 200);
  t.teardown(() => receiver.close());
  const viaMcp = await mcp.viaMcp(owner.key, 'create_webhook_endpoint', {
    url: receiver.url,
    events: ['order.paid', 'order.paid', 'listing.live'],
  });
  t.false(viaMcp.error, JSON.stringify(viaMcp.body));
  t.deepEqual(viaMcp.body.events, ['order.paid', 'listing.live']);
  const id = viaMcp.body.id;

  const listed = await api(env, 'GET', '/me/webhooks', { key: owner.key });
  t.is(listed.status, 200);
  t.is(listed.body.items.length, 1);
  t.false('secret' in listed.body.items[0]);
  t.false(JSON.stringify(listed.body).includes(viaMcp.body.secret));
  // Stored encrypted: the clear secret is nowhere in the row.
  const row = await db()('webhook_endpoints').where({ id }).first();
  t.false(row!.secret_box.toString('latin1').includes(viaMcp.body.secret.slice(6)));

  const changed = await api(env, 'PATCH', `/me/webhooks/${id}`, { key: owner.key, body: { events: ['weekly.result'], enabled: false } });
  t.is(changed.status, 200);
  t.like(changed.body, { events: ['weekly.result'], enabled: false, disabled_reason: 'by_owner' });
  const empty = await api(env, 'PATCH', `/me/webhooks/${id}`, { key: owner.key, body: {} });
  t.is(empty.status, 400);
  t.is(empty.body.code, 'nothing_to_change');

  const rotated = await mcp.viaMcp(owner.key, 'rotate_webhook_secret', { endpoint_id: id });
  t.false(rotated.error);
  t.regex(rotated.body.secret, /^whsec_/);
  t.not(rotated.body.secret, viaMcp.body.secret);

  const deleted = await api(env, 'DELETE', `/me/webhooks/${id}`, { key: owner.key });
  t.deepEqual(deleted.body, { id, deleted: true });
  t.is((await api(env, 'DELETE', `/me/webhooks/${id}`, { key: owner.key })).status, 404);
});

test('bad input: unknown event type, bad URLs, someone else’s endpoint (404), missing scope; REST and MCP', async (t) => {
  const owner = await ownerWithListing('Bad Beavers');
  const stranger = await env.user();
  const readOnly = await env.user(['account:read']);
  const receiver = await startReceiver(() => 200);
  t.teardown(() => receiver.close());
  const endpoint = await createEndpoint(owner.key, receiver.url);

  const unknown = await api(env, 'POST', '/me/webhooks', { key: owner.key, body: { url: receiver.url, events: ['listing.exploded'] } });
  t.is(unknown.status, 400);
  t.is(unknown.body.code, 'validation_failed');
  t.true(JSON.stringify(unknown.body.errors).includes('events'));
  const unknownMcp = await mcp.viaMcp(owner.key, 'create_webhook_endpoint', { url: receiver.url, events: ['listing.exploded'] });
  t.true(unknownMcp.error);
  t.is(unknownMcp.body.code, 'validation_failed');

  for (const url of ['ftp://example.com/hook', 'not a url', 'https://user:pw@example.com/hook']) {
    const res = await api(env, 'POST', '/me/webhooks', { key: owner.key, body: { url, events: ['order.paid'] } });
    t.is(res.status, 400, url);
    t.regex(res.body.code, /validation_failed|invalid_url/);
  }
  const noEvents = await api(env, 'POST', '/me/webhooks', { key: owner.key, body: { url: receiver.url, events: [] } });
  t.is(noEvents.status, 400);
  const extra = await api(env, 'POST', '/me/webhooks', {
    key: owner.key,
    body: { url: receiver.url, events: ['order.paid'], secret: 'mine' },
  });
  t.is(extra.status, 400);

  for (const [method, path, body] of [
    ['GET', `/me/webhooks/${endpoint.id}/deliveries`, undefined],
    ['PATCH', `/me/webhooks/${endpoint.id}`, { enabled: false }],
    ['POST', `/me/webhooks/${endpoint.id}/rotate-secret`, {}],
    ['DELETE', `/me/webhooks/${endpoint.id}`, undefined],
    ['POST', `/me/webhooks/${endpoint.id}/deliveries/1/redeliver`, {}],
  ] as const) {
    const res = await api(env, method, path, { key: stranger.key, body });
    t.is(res.status, 404, `${method} ${path}`);
    t.is(res.body.code, 'not_found');
  }
  const strangerMcp = await mcp.viaMcp(stranger.key, 'update_webhook_endpoint', { endpoint_id: endpoint.id, enabled: false });
  t.true(strangerMcp.error);
  t.is(strangerMcp.body.code, 'not_found');
  t.true((await db()('webhook_endpoints').where({ id: endpoint.id }).first())!.enabled, 'untouched by the stranger');
  const unknownDelivery = await api(env, 'POST', `/me/webhooks/${endpoint.id}/deliveries/999999/redeliver`, { key: owner.key, body: {} });
  t.is(unknownDelivery.status, 404);

  const scope = await api(env, 'POST', '/me/webhooks', { key: readOnly.key, body: { url: receiver.url, events: ['order.paid'] } });
  t.is(scope.status, 403);
  t.is(scope.body.code, 'insufficient_scope');
  t.is((await api(env, 'GET', '/me/webhooks', { key: readOnly.key })).status, 200);
});

test('at most 10 endpoints per account', async (t) => {
  const owner = await env.user();
  for (let i = 0; i < 10; i++) await createEndpoint(owner.key, `http://127.0.0.1:9/hook-${i}`, ['order.paid']);
  const res = await api(env, 'POST', '/me/webhooks', {
    key: owner.key,
    body: { url: 'http://127.0.0.1:9/hook-10', events: ['order.paid'] },
  });
  t.is(res.status, 409);
  t.is(res.body.code, 'webhook_endpoint_limit');
});
