import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { promo, quote } from '../helpers/orders.ts';

/** Wrong promo tries per client address (a file of its own: the limit is lowered for the whole env). */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { PROMO_MAX_WRONG_PER_IP_DAY: '3' });
});
test.after.always(() => env?.close());

test('wrong tries from one address are limited across accounts', async (t) => {
  const users = await Promise.all([env.user(), env.user(), env.user()]);
  const bodies = await Promise.all(
    users.map(async (u, i) => {
      const listingId = await insertLiveListing(env.services.db, { name: `Shared Office ${i}`, ownerId: u.userId });
      return (code: string) => ({
        items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
        billing_country: 'US',
        promo_code: code,
      });
    }),
  );
  const good = await promo(env.services.db);
  t.is((await quote(env, users[0]!.key, bodies[0]!('WRONG-A'))).status, 422);
  t.is((await quote(env, users[1]!.key, bodies[1]!('WRONG-B'))).status, 422);
  t.is((await quote(env, users[1]!.key, bodies[1]!(good))).status, 200);
  t.is((await quote(env, users[2]!.key, bodies[2]!('WRONG-C'))).status, 422);
  const limited = await quote(env, users[2]!.key, bodies[2]!('WRONG-D'));
  t.is(limited.status, 429);
  t.is(limited.body.code, 'rate_limited');
  const retry = Number(limited.headers.get('retry-after'));
  t.true(retry > 86_000 && retry <= 86_400, String(retry));
  // A client cannot claim another address without trusted proxies (TRUST_PROXY_HOPS=0).
  const elsewhere = await quote(env, users[0]!.key, bodies[0]!('WRONG-E'), { 'x-forwarded-for': '203.0.113.9' });
  t.is(elsewhere.status, 429, 'X-Forwarded-For is not believed without trusted proxies');
});
