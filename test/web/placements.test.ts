import test from 'ava';
import { billboardOn, featuredListings } from '../../src/domain/orders/placements.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, inDays, mondayIn, postWebhook, succeededEvent, waitForOrder } from '../helpers/orders.ts';
import { WebClient } from '../helpers/web.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { CATALOG_CACHE_TTL_MS: '0' });
  await env.startWorkers();
});
test.after.always(() => env?.close());

const db = () => env.services.db;

async function paid(key: string, items: unknown[]) {
  const order = (await checkout(env, key, { items, billing_country: 'US' })).body;
  await postWebhook(env, succeededEvent(order.number, order.total_cents));
  return waitForOrder(env, key, order.number, ['fulfilled']);
}

test('paid placements show: featured weeks, category pages paid first, the billboard banner on its days', async (t) => {
  const owner = await env.user();
  const site = (await db()('sites').where({ key: 'main' }).first('id'))!.id;
  const organic = await insertLiveListing(db(), { name: 'Organic Analytics', ownerId: owner.userId, votes: 500 });
  await db()('listings')
    .where({ id: organic })
    .update({ categories: ['analytics'] });
  const bought = await insertLiveListing(db(), { name: 'Paid Analytics', ownerId: owner.userId, votes: 1 });
  await paid(owner.key, [
    // This week on purpose: on a short week (Friday night to Sunday) the default start is next week.
    { product: 'featured', listing_id: bought, options: { weeks: 2, start_week: isoWeekStart(new Date()) } },
    { product: 'categories', listing_id: bought, options: { categories: ['analytics'] } },
    { product: 'billboard', listing_id: bought, options: { start_date: inDays(1), days: 7 } },
  ]);

  const thisWeek = isoWeekStart(new Date());
  t.deepEqual(
    (await featuredListings(db(), site, thisWeek)).map((l) => l.id),
    [bought],
  );
  t.deepEqual(
    (await featuredListings(db(), site, mondayIn(1))).map((l) => l.id),
    [bought],
  );
  t.deepEqual(await featuredListings(db(), site, mondayIn(2)), []);
  const launches = await new WebClient(env.baseUrl).get('/launches');
  t.deepEqual(
    launches
      .$('section.featured li a')
      .map((_, a) => launches.$(a).attr('href'))
      .get(),
    [`/listings/${(await db()('listings').where({ id: bought }).first('slug'))!.slug}`],
  );

  const page = await new WebClient(env.baseUrl).get('/categories/analytics');
  t.is(page.status, 200);
  const order = page
    .$('[data-listing]')
    .map((_i, el) => Number(page.$(el).attr('data-listing')))
    .get();
  t.deepEqual(order.slice(0, 2), [bought, organic]);
  t.is(page.$(`[data-listing="${bought}"]`).attr('data-placed'), 'true');
  t.is((await request(env, 'GET', '/categories/not-a-category')).status, 404);

  t.is((await billboardOn(db(), site, inDays(1)))?.id, bought);
  t.is(await billboardOn(db(), site, inDays(0)), null);
  const home = await new WebClient(env.baseUrl).get('/updates');
  t.is(home.$('[data-billboard]').length, 0);
  // Tomorrow comes: the booked day is today.
  await db()('billboard_days')
    .where({ listing_id: bought, day: inDays(1) })
    .update({ day: inDays(0) });
  const withBanner = await new WebClient(env.baseUrl).get('/updates');
  t.is(withBanner.$('[data-billboard]').attr('data-billboard'), String(bought));
  t.regex(withBanner.$('[data-billboard]').text(), /Paid Analytics/);
});
