import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * Kept pages that have aged (PAGE_CACHE_TTL_MS of 1 ms: every copy has aged by its next visit):
 * a visitor gets the aged copy at once while the page is rendered again apart from the request;
 * a listing that went away is gone for visitors after that render.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '1' });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const headline = async () => {
  const res = await new WebClient(env.baseUrl).get('/listings/aging-copy');
  return res.status === 200 ? res.$('p.lead').text() : res.status;
};

test('an aged copy is sent while the page is rendered again; a listing taken down then answers 404', async (t) => {
  const id = await insertLiveListing(db(), { name: 'Aging Copy', url: 'https://aging.example.com/', headline: 'First headline' });
  t.is(await headline(), 'First headline');
  await db()('listings').where({ id }).update({ headline: 'Second headline' });
  t.is(await headline(), 'First headline', 'the aged copy, at once');
  await eventually('the page rendered again', async () => (await headline()) === 'Second headline');

  await db()('listings').where({ id }).update({ status: 'unlisted' });
  await eventually('the listing gone for visitors', async () => (await headline()) === 404);
  t.is(await headline(), 404);
});
