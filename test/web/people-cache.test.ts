import test from 'ava';
import { PeopleCache } from '../../src/cache/people-cache.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { voters, type Voter } from '../helpers/votes.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';

/**
 * What an api process keeps of signed-in people (sessions, their own state) while change notices
 * arrive: their kept pages read nothing, any write to that state (from this process, another, a
 * worker or the database itself) shows, their own at once, and nothing kept is trusted while
 * notices cannot arrive.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '600000' });
  const changes = env.services.listenForChanges();
  await eventually('the change listener', () => changes.listening());
});
test.after.always(() => env?.close());

const db = () => env.services.db;

async function listing(tag: string) {
  const id = await insertLiveListing(db(), { name: `Kept ${tag}`, url: `https://kept-${tag}.example.com/`, votes: 2 });
  await db()('listings').where({ id }).update({ week_votes: 2 });
  return (await db()('listings').where({ id }).first('id', 'slug')) as { id: number; slug: string };
}

/** The queries the pool runs while `work` does, but the background writers' (workflow starts, page counters). */
async function queriesDuring(work: () => Promise<unknown>): Promise<string[]> {
  const queries: string[] = [];
  const count = (q: { sql: string }) => void (/\b(workflow_starts|vote_button_views|page_counts)\b/.test(q.sql) || queries.push(q.sql));
  db().on('query', count);
  try {
    await work();
  } finally {
    db().off('query', count);
  }
  return queries;
}

const voteState = (page: WebResponse, slug: string) => page.$(`#vote-${slug}`).attr('data-vote-state');
const unread = (page: WebResponse) => page.$('a[data-unread]').attr('data-unread');

async function setting(): Promise<{ item: { id: number; slug: string }; person: Voter; path: string }> {
  const tag = Math.random().toString(36).slice(2, 8);
  const item = await listing(tag);
  const [person] = await voters(db(), env.baseUrl, 1);
  return { item, person: person!, path: `/listings/${item.slug}` };
}

test.serial('a kept page read again by a signed-in person costs no query, and the first at most two', async (t) => {
  const { item, person, path } = await setting();
  await new WebClient(env.baseUrl).get(path); // the visitors' copy, kept
  await new WebClient(env.baseUrl).get('/signin'); // the CSRF key, read once per process
  const first = await queriesDuring(() => person.client.get(path));
  t.true(first.length <= 2, first.join('\n'));
  let page: WebResponse | undefined;
  for (const where of [path, '/', '/launches']) {
    // The first look at / and /launches renders their visitors' copy; the second is the kept one.
    await person.client.get(where);
    const again = await queriesDuring(async () => (page = await person.client.get(where)));
    t.deepEqual(again, [], where);
    t.is(voteState(page!, item.slug), 'none', where);
    t.is(page!.$('form[action="/signout"]').length, 1, `${where}: signed in`);
  }
});

test.serial('a write made elsewhere (another process, a worker, SQL) shows on their next page once its notice arrives', async (t) => {
  const { item, person, path } = await setting();
  t.is(voteState(await person.client.get(path), item.slug), 'none');
  t.is(unread(await person.client.get(path)), '0');
  const at = new Date();
  await db()('votes').insert({ listing_id: item.id, user_id: person.id, created_at: at });
  await eventually('the vote on their page', async () => voteState(await person.client.get(path), item.slug) === 'voted');
  await db()('notifications').insert({ user_id: person.id, kind: 'listing_claimed', created_at: at });
  await eventually('the unread count', async () => unread(await person.client.get(path)) === '1');
  await db()('listings').where({ id: item.id }).update({ owner_id: person.id });
  await eventually('their listing', async () => voteState(await person.client.get(path), item.slug) === 'own');
  await db()('listing_followers').insert({ listing_id: item.id, user_id: person.id, created_at: at });
  await eventually('the follow', async () => (await person.client.get(path)).$('.follow').attr('data-following') === 'true');
  t.is(env.services.caches.people.size > 0, true, 'the state is kept between the changes');
});

test.serial('their own vote shows on the page it sends them back to, with no wait for the notice', async (t) => {
  const { item, person, path } = await setting();
  const page = await person.client.get(path);
  t.is(voteState(page, item.slug), 'none');
  const action = `/listings/${item.slug}/vote`;
  const _csrf = page.$(`form[action="${action}"] input[name=_csrf]`).val() as string;
  const voted = await person.client.post(action, { _csrf, return_to: path });
  t.is(voted.status, 303);
  t.is(voteState(await person.client.get(voted.location!), item.slug), 'voted');
});

test.serial('a session ended elsewhere and an email confirmed elsewhere count once their notices arrive', async (t) => {
  const tag = Math.random().toString(36).slice(2, 8);
  const item = await listing(tag);
  const [unconfirmed] = await voters(db(), env.baseUrl, 1, false);
  const path = `/listings/${item.slug}`;
  t.is(voteState(await unconfirmed!.client.get(path), item.slug), 'unconfirmed');
  await db()('users').where({ id: unconfirmed!.id }).update({ email_verified_at: new Date() });
  await eventually('the confirmed account', async () => voteState(await unconfirmed!.client.get(path), item.slug) === 'none');
  await db()('web_sessions').where({ user_id: unconfirmed!.id }).delete();
  await eventually('the ended session', async () => voteState(await unconfirmed!.client.get(path), item.slug) === 'anonymous');
  t.is((await unconfirmed!.client.get(path)).$('form[action="/signout"]').length, 0);
});

test.serial('while notices cannot arrive nothing kept is used, and keeping starts again once they can', async (t) => {
  const { item, person, path } = await setting();
  await person.client.get(path);
  const changes = env.services.listenForChanges();
  await db().raw(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = ?`, [
    `listing-directory changes ${process.pid}`,
  ]);
  await eventually('the lost listener', () => !changes.listening());
  t.is(env.services.caches.people.size + env.services.caches.sessions.size, 0);
  // A write now sends a notice no one hears: the page must still show it.
  await db()('votes').insert({ listing_id: item.id, user_id: person.id, created_at: new Date() });
  const meanwhile = await queriesDuring(async () => t.is(voteState(await person.client.get(path), item.slug), 'voted'));
  t.true(meanwhile.length > 0, 'read from the database');
  await eventually('the listener again', () => changes.listening());
  await person.client.get(path);
  t.deepEqual(await queriesDuring(() => person.client.get(path)), []);
});

test.serial('a Vote form names the outside site each person came from, and only theirs', async (t) => {
  const { item, person, path } = await setting();
  const fromField = (page: WebResponse) => page.$(`#vote-${item.slug} input[name=from]`).val();
  await person.client.get(path);
  for (const site of ['https://news.example.org/', 'https://other.example.net/']) {
    const page = await person.client.get(path, { referer: `${site}item?id=1` });
    t.is(voteState(page, item.slug), 'none');
    t.is(fromField(page), site);
  }
  t.is(fromField(await person.client.get(path)), undefined, 'no outside site: no field');
  t.is(fromField(await person.client.get(path, { referer: `${env.baseUrl}/` })), undefined, 'this site is not an outside one');
});

test.serial('pages answered at once to many people each carry only that person’s parts', async (t) => {
  const crowd = await voters(db(), env.baseUrl, 24);
  const at = new Date();
  // Person i has i unread notifications: each page says whose it is.
  await db()('notifications').insert(
    crowd.flatMap((p, i) => Array.from({ length: i }, () => ({ user_id: p.id, kind: 'listing_claimed', created_at: at }))),
  );
  const tokens = await Promise.all(crowd.map(async (p) => (await p.client.get('/')).$('form[action="/signout"] input[name=_csrf]').val()));
  for (let round = 0; round < 5; round++) {
    const pages = await Promise.all(
      crowd.flatMap((p) => ['/', '/launches'].map(async (where) => ({ p, page: await p.client.get(where) }))),
    );
    for (const { p, page } of pages) {
      const i = crowd.indexOf(p);
      t.is(unread(page), String(i));
      t.deepEqual(
        [
          ...new Set(
            page
              .$('input[name=_csrf]')
              .map((_, el) => page.$(el).val())
              .get(),
          ),
        ],
        [tokens[i]],
        'every form carries their own token',
      );
    }
  }
});

test.serial('a hostile or unknown session cookie is a visitor, and is not kept', async (t) => {
  const { item, path } = await setting();
  const [stranger] = await voters(db(), env.baseUrl, 1);
  for (const value of ['x'.repeat(5000), 'no-such-session', '"><script>', '']) {
    stranger!.client.cookies.set('ld_session', value);
    const page = await stranger!.client.get(path);
    t.is(page.status, 200);
    t.is(voteState(page, item.slug), 'anonymous');
  }
});

test('a load that began before its person was forgotten keeps nothing; others are kept', (t) => {
  const cache = new PeopleCache<number, { n: number }>(10);
  cache.trust(true);
  const since = cache.begin();
  cache.forget(1);
  cache.keep(1, 1, { n: 1 }, since);
  cache.keep(2, 2, { n: 2 }, since);
  t.is(cache.get(1), undefined, 'may hold what the forget was about');
  t.deepEqual(cache.get(2), { n: 2 });
  const later = cache.begin();
  cache.forget();
  cache.keep(3, 3, { n: 3 }, later);
  t.is(cache.get(3), undefined, 'everyone was forgotten meanwhile');
  t.is(cache.get(2), undefined);
});

test('entries are forgotten by person, dropped past capacity, and neither kept nor read untrusted', (t) => {
  const cache = new PeopleCache<string, { n: number }>(2);
  cache.keep('a', 1, { n: 1 }, cache.begin());
  t.is(cache.get('a'), undefined, 'not trusted before the listener listens');
  cache.trust(true);
  cache.keep('a', 1, { n: 1 }, cache.begin());
  cache.keep('b', 1, { n: 2 }, cache.begin());
  cache.forget(1);
  t.is(cache.size, 0, 'both of the person’s entries');
  for (const [key, user] of [
    ['a', 1],
    ['b', 2],
    ['c', 3],
  ] as const)
    cache.keep(key, user, { n: user }, cache.begin());
  t.is(cache.size, 2);
  t.is(cache.get('a'), undefined, 'the least recently read goes');
  cache.trust(false);
  t.is(cache.get('c'), undefined);
  const off = new PeopleCache<string, { n: number }>(0);
  off.trust(true);
  off.keep('a', 1, { n: 1 }, off.begin());
  t.is(off.get('a'), undefined, 'PEOPLE_KEPT=0 keeps nothing');
});
