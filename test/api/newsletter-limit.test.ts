import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';

// subscribe_newsletter takes a point of the one rate limiter per client address.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { NEWSLETTER_SUBSCRIBES_PER_IP_PER_HOUR: '3' });
});
test.after.always(() => env?.close());

test('subscribing is limited per client address: 429 with Retry-After beyond the limit', async (t) => {
  const subscribe = (i: number) => api(env, 'POST', '/newsletter/subscribe', { body: { email: `limited-${i}@example.com` } });
  for (const i of [1, 2, 3]) t.is((await subscribe(i)).status, 202);
  const refused = await subscribe(4);
  t.is(refused.status, 429);
  t.is(refused.body.code, 'rate_limited');
  t.true(Number(refused.headers.get('retry-after')) > 0);
  t.is((await env.services.db('mail_outbox').where({ to_address: 'limited-4@example.com' })).length, 0, 'no mail for the refused one');
});
