import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { voters } from '../helpers/votes.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * The copies of public pages kept for visitors without a session (PAGE_CACHE_TTL_MS): visitors
 * share one render, signed-in people never see a copy, a vote forgets the copies, error pages
 * and notices are never kept, and each response still has its own nonce.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '600000' });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const visitor = () => new WebClient(env.baseUrl);
const votesOn = async (client: WebClient, path: string, slug: string) => (await client.get(path)).$(`#vote-${slug} [data-votes]`).text();

test.serial('visitors share a kept copy; signed-in people see the counts as they are; a vote forgets the copies', async (t) => {
  const id = await insertLiveListing(db(), { name: 'Kept Copy', url: 'https://kept.example.com/' });
  const [voter] = await voters(db(), env.baseUrl, 1);
  t.is(await votesOn(visitor(), '/listings/kept-copy', 'kept-copy'), '0');
  t.is(await votesOn(visitor(), '/', 'kept-copy'), '0');
  await db()('listings').where({ id }).update({ votes: 7, week_votes: 7 });
  t.is(await votesOn(visitor(), '/listings/kept-copy', 'kept-copy'), '0', 'the kept copy');
  t.is(await votesOn(visitor(), '/', 'kept-copy'), '0', 'the kept copy');
  t.is(await votesOn(voter!.client, '/listings/kept-copy', 'kept-copy'), '7', 'signed in: rendered for them');

  const page = await voter!.client.get('/listings/kept-copy');
  const _csrf = page.$('form[action="/listings/kept-copy/vote"] input[name=_csrf]').val() as string;
  t.is((await voter!.client.post('/listings/kept-copy/vote', { _csrf })).status, 303);
  t.is(await votesOn(visitor(), '/listings/kept-copy', 'kept-copy'), '8');
  t.is(await votesOn(visitor(), '/', 'kept-copy'), '8');

  // Each response has its own nonce, in the CSP and on the style element.
  const [a, b] = [await visitor().get('/listings/kept-copy'), await visitor().get('/listings/kept-copy')];
  const nonceOf = (r: typeof a) => /'nonce-([^']+)'/.exec(r.headers.get('content-security-policy')!)![1];
  t.not(nonceOf(a), nonceOf(b));
  t.is(a.$('style').attr('nonce'), nonceOf(a));
  t.is(b.$('style').attr('nonce'), nonceOf(b));
});

test.serial('error pages and notices are never kept', async (t) => {
  const id = await insertDraftListing(db(), { name: 'Not Yet', url: 'https://notyet.example.com/' });
  t.is((await visitor().get('/listings/not-yet')).status, 404);
  await db()('listings')
    .where({ id })
    .update({ status: 'live', launch_week: db().raw('current_date') });
  const live = await visitor().get('/listings/not-yet');
  t.is(live.status, 200);
  t.is(live.$('h1').text(), 'Not Yet');
  const noticed = await visitor().get('/listings/not-yet?notice=voted');
  t.is(noticed.$('.notice').text(), 'Your vote is counted.');
  t.is((await visitor().get('/listings/not-yet')).$('.notice').length, 0);
});

test.serial('a view served from the kept copy is counted like a fresh one', async (t) => {
  const id = await insertLiveListing(db(), { name: 'Counted Copy', url: 'https://counted.example.com/' });
  const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36' };
  const first = await visitor().get('/listings/counted-copy', browser);
  await db()('listings').where({ id }).update({ headline: 'Changed after the copy was kept' });
  const second = await visitor().get('/listings/counted-copy', browser);
  t.is(second.$('p.lead').text(), first.$('p.lead').text(), 'the second view is the kept copy');
  t.is((await visitor().get('/listings/no-such-listing', browser)).status, 404);
  await env.services.pageCounters.flush();
  const [{ views }] = await db()('listing_hourly_counts').where({ listing_id: id }).sum({ views: 'views' });
  t.is(Number(views), 2);
});
