import test from 'ava';
import { signWebhook } from '../../src/payments/signature.ts';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { succeededEvent } from '../helpers/orders.ts';

/** A webhook is checked field by field before anything is stored: a payload no payment can carry is a 400. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const secret = () => env.services.config.orders.test.webhookSecret;
const stored = async (eventId: string) =>
  Number((await env.services.db('payment_events').where({ provider_event_id: eventId }).count({ n: '*' }))[0].n);

/** POSTs a payload as is (a string is sent raw), signed with the development secret at `at` (seconds). */
function post(payload: string, at = Math.floor(Date.now() / 1000)) {
  return request(env, 'POST', '/webhooks/payments/test', {
    body: payload,
    headers: { 'stripe-signature': signWebhook(payload, secret(), at) },
  });
}

type Event = ReturnType<typeof succeededEvent>;
const MALFORMED: [string, (e: Event) => void, string][] = [
  ['amount 1e30', (e) => Object.assign(e.data.object, { amount: 1e30, amount_received: 1e30 }), 'data.object.amount'],
  ['amount -1', (e) => Object.assign(e.data.object, { amount: -1, amount_received: -1 }), 'data.object.amount'],
  ['amount 1.5', (e) => Object.assign(e.data.object, { amount: 1.5, amount_received: 1.5 }), 'data.object.amount'],
  ['amount as text', (e) => Object.assign(e.data.object, { amount: '1000', amount_received: '1000' }), 'data.object.amount'],
  ['amount above the tables range', (e) => Object.assign(e.data.object, { amount_received: 2 ** 31 }), 'data.object.amount_received'],
  ['currency "usd1"', (e) => Object.assign(e.data.object, { currency: 'usd1' }), 'data.object.currency'],
  ['a currency of 4 letters', (e) => Object.assign(e.data.object, { currency: 'usdd' }), 'data.object.currency'],
  ['no currency', (e) => Object.assign(e.data.object, { currency: undefined }), 'data.object.currency'],
  ['an event id with control characters', (e) => Object.assign(e, { id: 'evt_\u0007bell\r\n' }), 'id'],
  ['an event id of 256 characters', (e) => Object.assign(e, { id: `evt_${'x'.repeat(252)}` }), 'id'],
  ['a payment id with a NUL', (e) => Object.assign(e.data.object, { id: 'pi_\u0000' }), 'data.object.id'],
];

for (const [what, spoil, path] of MALFORMED) {
  test(`a signed event with ${what} is refused with a 400 problem and nothing is stored`, async (t) => {
    const event = succeededEvent('LD-AAAA-BBBB', 1000);
    spoil(event);
    const res = await post(JSON.stringify(event));
    t.is(res.status, 400, JSON.stringify(res.body));
    t.regex(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    t.like(res.body, { status: 400, code: 'invalid_webhook' });
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === path),
      JSON.stringify(res.body.errors),
    );
    t.is(await stored(event.id), 0);
  });
}

test('a signature dated more than 5 minutes ahead is refused like a stale one; a little clock skew is not', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  // 30 s past the 5-minute tolerance each way: the server reads its clock a moment later than this
  // line (seconds, on a machine loaded by the whole suite), and now+301 could then be in tolerance.
  for (const at of [now + 330, now + 3600, now - 330]) {
    const event = succeededEvent('LD-AAAA-CCCC', 1000);
    const res = await post(JSON.stringify(event), at);
    t.is(res.status, 400, `signed at now${at - now > 0 ? '+' : ''}${at - now} s`);
    t.like(res.body, { code: 'invalid_signature' });
    t.is(await stored(event.id), 0);
  }
  const skewed = succeededEvent('LD-AAAA-CCCC', 1000);
  t.is((await post(JSON.stringify(skewed), now + 60)).status, 200);
  t.is(await stored(skewed.id), 1);
});

test('events that are not payment intents still pass with their own objects', async (t) => {
  const event = {
    id: 'evt_charge_1',
    object: 'event',
    type: 'charge.refunded',
    data: { object: { id: 'ch_1', object: 'charge', amount: 5 } },
  };
  const res = await post(JSON.stringify(event));
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(await stored(event.id), 1);
});

test('a webhook body over 1 MiB is a 413 and one nested too deep a 400, before any parsing; nothing is stored', async (t) => {
  const big = succeededEvent('LD-AAAA-DDDD', 1000);
  Object.assign(big.data.object, { description: 'x'.repeat((1 << 20) + 1) });
  const large = await post(JSON.stringify(big));
  t.is(large.status, 413, JSON.stringify(large.body));
  t.like(large.body, { status: 413, code: 'payload_too_large' });
  t.regex(large.body.detail, /larger than 1 MB/);
  t.is(await stored(big.id), 0);

  // Signed, so only the depth guard refuses it.
  const deep = succeededEvent('LD-AAAA-EEEE', 1000);
  const nested = JSON.stringify(deep).replace(/}$/, `,"metadata":${'['.repeat(100)}${']'.repeat(100)}}`);
  const res = await post(nested);
  t.is(res.status, 400, JSON.stringify(res.body));
  t.like(res.body, { status: 400, code: 'validation_failed' });
  t.regex(res.body.detail, /nests arrays and objects deeper than 64 levels/);
  t.is(await stored(deep.id), 0);
});
