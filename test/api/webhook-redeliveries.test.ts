import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

// Sending a delivery again costs the receiver a request and us a workflow: an endpoint takes a
// limited number of redeliveries an hour (WEBHOOK_REDELIVERIES_PER_HOUR), like other costly actions.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { WEBHOOK_REDELIVERIES_PER_HOUR: '2', WORKFLOW_START_SWEEP_MS: '100' });
  await env.startWorkers();
});
test.after.always(() => env?.close());

async function endpointWithDelivery(name: string, receiverUrl: string) {
  const owner = await env.user();
  const listingId = await insertLiveListing(env.services.db, {
    name,
    ownerId: owner.userId,
    url: `https://${name.toLowerCase()}.example/`,
  });
  const endpoint = await api(env, 'POST', '/me/webhooks', { key: owner.key, body: { url: receiverUrl, events: ['update.published'] } });
  if (endpoint.status !== 201) throw new Error(JSON.stringify(endpoint.body));
  await api(env, 'POST', `/me/listings/${listingId}/updates`, { key: owner.key, body: { title: 'News', body: 'Something new.' } });
  const delivery = await eventually('the delivery', async () => {
    const res = await api(env, 'GET', `/me/webhooks/${endpoint.body.id}/deliveries`, { key: owner.key });
    return res.body.items[0]?.status === 'succeeded' ? res.body.items[0] : null;
  });
  const redeliver = () => api(env, 'POST', `/me/webhooks/${endpoint.body.id}/deliveries/${delivery.id}/redeliver`, { key: owner.key });
  return { redeliver };
}

test('an endpoint takes its hour’s redeliveries, then 429 with Retry-After; another endpoint is not affected', async (t) => {
  const receiver = await startReceiver(() => 204);
  t.teardown(() => receiver.close());
  const first = await endpointWithDelivery('Resent', receiver.url);
  const second = await endpointWithDelivery('Other', receiver.url);
  t.is((await first.redeliver()).status, 200);
  t.is((await first.redeliver()).status, 200);
  const refused = await first.redeliver();
  t.is(refused.status, 429, JSON.stringify(refused.body));
  t.is(refused.body.code, 'rate_limited');
  t.regex(refused.body.detail, /2 deliveries again within the hour/);
  const wait = Number(refused.headers.get('retry-after'));
  t.true(wait > 3500 && wait <= 3600, String(wait));
  t.is((await second.redeliver()).status, 200);
});
