import test from 'ava';
import { createCrawlAgent } from '../../../src/domain/crawl/fetch-page.ts';
import { attemptDelivery } from '../../../src/domain/webhooks/deliveries.ts';
import { emitEvent } from '../../../src/domain/webhooks/emit.ts';
import { sealSecret } from '../../../src/domain/webhooks/secret-box.ts';
import { api, startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { startReceiver } from '../../helpers/webhook-receiver.ts';

/**
 * Private addresses: refused when an endpoint is added, and again when a delivery
 * connects (a host may resolve elsewhere by then), unless CRAWL_ALLOW_PRIVATE_NETWORKS. This env
 * runs as production does, with private networks refused.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { CRAWL_ALLOW_PRIVATE_NETWORKS: 'false' });
});
test.after.always(() => env?.close());

const db = () => env.services.db;

test('adding an endpoint: private and loopback addresses refused, plain http refused', async (t) => {
  const owner = await env.user();
  for (const url of [
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://[::1]/hook',
    'https://localhost/hook',
    'https://169.254.169.254/latest',
  ]) {
    const res = await api(env, 'POST', '/me/webhooks', { key: owner.key, body: { url, events: ['order.paid'] } });
    t.is(res.status, 400, url);
    t.is(res.body.code, 'address_refused', url);
  }
  const http = await api(env, 'POST', '/me/webhooks', {
    key: owner.key,
    body: { url: 'http://hooks.example.com/x', events: ['order.paid'] },
  });
  t.is(http.status, 400);
  t.is(http.body.code, 'invalid_url');
  t.regex(http.body.detail, /https/);
  t.is(Number((await db()('webhook_endpoints').where({ user_id: owner.userId }).count({ n: '*' }))[0]!.n), 0);
});

test('a delivery to an address that became private is refused when it connects, recorded, and never reaches it', async (t) => {
  const receiver = await startReceiver(() => 200);
  t.teardown(() => receiver.close());
  const owner = await env.user();
  // An endpoint added while its name resolved to a public address, pointing at loopback now.
  const [{ id }] = await db()('webhook_endpoints')
    .insert({
      user_id: owner.userId,
      url: 'https://hooks.example.com/x',
      events: ['order.paid'],
      secret_box: await sealSecret(env.services.secrets, 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
    })
    .returning('id');
  const agent = createCrawlAgent(false);
  t.teardown(() => agent.close());
  const deps = { db: db(), secrets: env.services.secrets, agent, allowPrivateNetworks: false, baseUrl: env.baseUrl, userAgent: 'test' };
  for (const [i, url] of [`http://127.0.0.1:${receiver.port}/hooks`, `http://localhost:${receiver.port}/hooks`].entries()) {
    await db()('webhook_endpoints').where({ id }).update({ url });
    const [deliveryId] = await emitEvent(db(), { type: 'order.paid', userId: owner.userId, dedupeKey: `guard-test:${i}`, data: {} });
    t.is(await attemptDelivery(deps, { deliveryId: deliveryId!, round: 0, retryInMs: 1000 }), 'retry', url);
    const delivery = await db()('webhook_deliveries').where({ id: deliveryId }).first();
    t.like(delivery, { status: 'pending', attempts: 1, last_status_code: null });
    t.regex(delivery!.last_error!, /loopback/, url);
    t.truthy(delivery!.next_attempt_at);
  }
  t.is(receiver.received.length, 0);
});
