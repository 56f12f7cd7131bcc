import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { voters, type Voter } from '../helpers/votes.ts';
import { WebClient } from '../helpers/web.ts';
import { addWeeks, isoWeekStart } from '../../src/operations/read-models/launches.ts';
import { slotsOf } from '../../src/web/personal-slots.ts';

/**
 * The front page and /launches of a signed-in person, made of the kept visitors' page and their
 * own parts in its slots, are the pages a whole render gives them (PERSONAL_PAGE_SLOTS off): for a
 * voter with unread notifications, someone who has not voted, and the owner of a listing with a
 * hostile name; and they cost the session lookup and one query, the Vote buttons shown counted in memory.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '600000' });
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const settings = () => env.services.config.cache as { personalSlots: boolean };
const forgetKept = () => env.services.caches.visitorPages.forget();

interface Ranked {
  slugs: { hostile: string; voted: string; plain: string };
  voter: Voter;
  newcomer: Voter;
  owner: Voter;
}

let ranked: Promise<Ranked> | undefined;
/** Three listings of this week (one with a hostile name, owned by `owner`) and the three people. */
const rankedWeek = () => (ranked ??= seedRankedWeek());

async function seedRankedWeek(): Promise<Ranked> {
  const tag = Math.random().toString(36).slice(2, 8);
  const [voter, newcomer, owner] = await voters(db(), env.baseUrl, 3);
  const listing = async (name: string, votes: number) => {
    const id = await insertLiveListing(db(), { name, url: `https://${name.replace(/\W/g, '').toLowerCase()}-${tag}.example.com/`, votes });
    await db()('listings').where({ id }).update({ week_votes: votes });
    return (await db()('listings').where({ id }).first('id', 'slug'))!;
  };
  const hostile = await listing(`Rank <b>"${tag}"</b> & <!--p:nav:--> '<script>`, 50);
  const voted = await listing(`Voted ${tag}`, 40);
  const plain = await listing(`Plain ${tag}`, 30);
  await db()('listings').where({ id: hostile.id }).update({ owner_id: owner!.id });
  const at = new Date();
  await db()('votes').insert([
    { listing_id: voted.id, user_id: voter!.id, created_at: at },
    { listing_id: hostile.id, user_id: voter!.id, created_at: at },
  ]);
  await db()('notifications').insert([
    { user_id: voter!.id, kind: 'listing_claimed', created_at: at },
    { user_id: voter!.id, kind: 'listing_claimed', created_at: at },
  ]);
  return { slugs: { hostile: hostile.slug, voted: voted.slug, plain: plain.slug }, voter: voter!, newcomer: newcomer!, owner: owner! };
}

async function bothWays(client: WebClient, path: string): Promise<{ whole: string; slotted: string }> {
  settings().personalSlots = false;
  const whole = await client.get(path);
  settings().personalSlots = true;
  const slotted = await client.get(path);
  return { whole: whole.text, slotted: slotted.text };
}

const PAGES = () => [
  '/',
  '/launches',
  `/launches?week=${isoWeekStart(new Date())}`,
  `/launches?week=${addWeeks(isoWeekStart(new Date()), -1)}`,
  '/?q=Plain',
];

test.serial(
  'front page and /launches from the kept copy and slots are the whole render, for a voter, a newcomer, an owner and an unconfirmed account',
  async (t) => {
    const { voter, newcomer, owner } = await rankedWeek();
    const [unconfirmed] = await voters(db(), env.baseUrl, 1, false);
    forgetKept();
    for (const path of PAGES()) {
      const visitorPage = await new WebClient(env.baseUrl).get(path);
      // This week's ranking has the header's, the call to launch's (front page) and three vote slots; the others the header's.
      const ranking = path === '/' || path.endsWith('/launches') || path.endsWith(isoWeekStart(new Date()));
      t.true(slotsOf(visitorPage.text).length >= (ranking ? 4 : 1), `${path}: the visitors’ page marks its personal parts`);
      for (const person of [voter, newcomer, owner, unconfirmed!]) {
        const { whole, slotted } = await bothWays(person.client, path);
        t.false(whole.includes('<!--p:'), `${path}: a whole render has no slots`);
        t.is(slotted, whole, `${path}, ${person.email}`);
      }
    }
  },
);

test.serial('the vote controls, header and call to launch are the person’s, and a vote shows on their next page', async (t) => {
  const { slugs, voter, newcomer, owner } = await rankedWeek();
  forgetKept();
  await new WebClient(env.baseUrl).get('/');
  await new WebClient(env.baseUrl).get('/launches');
  for (const path of ['/', '/launches']) {
    const state = async (person: Voter, slug: string) => (await person.client.get(path)).$(`#vote-${slug}`).attr('data-vote-state');
    t.is(await state(voter, slugs.voted), 'voted', path);
    t.is(await state(voter, slugs.plain), 'none', path);
    t.is(await state(newcomer, slugs.voted), 'none', path);
    t.is(await state(owner, slugs.hostile), 'own', path);
    const page = await voter.client.get(path);
    t.is(page.headers.get('cache-control'), 'private, no-store');
    t.is(page.headers.get('etag'), null);
    t.is(page.$('a[href="/account/notifications"]').attr('data-unread'), '2');
    t.is(page.$('form[action="/signout"]').length, 1);
    t.false(page.text.includes('<!--p:'));
  }
  t.true((await owner.client.get('/')).$('a[href="/account/listings"]').text().includes('Draft a listing'));

  const before = await newcomer.client.get('/');
  const _csrf = before.$(`#vote-${slugs.plain} input[name=_csrf]`).val() as string;
  const votes = Number(before.$(`#vote-${slugs.plain} [data-votes]`).text());
  const posted = await newcomer.client.post(`/listings/${slugs.plain}/vote`, { _csrf, return_to: '/' });
  t.is(posted.status, 303);
  for (const path of ['/', '/launches']) {
    const after = await newcomer.client.get(path);
    t.is(after.$(`#vote-${slugs.plain}`).attr('data-vote-state'), 'voted', path);
    t.is(Number(after.$(`#vote-${slugs.plain} [data-votes]`).text()), votes + 1, path);
    t.is((await voter.client.get(path)).$(`#vote-${slugs.plain}`).attr('data-vote-state'), 'none', `${path}: another person’s page`);
  }
  await newcomer.client.post(`/listings/${slugs.plain}/unvote`, { _csrf, return_to: '/' });
});

test.serial('a signed-in front page or /launches costs the session lookup and one query; the Vote buttons shown are counted', async (t) => {
  const { slugs, newcomer } = await rankedWeek();
  const plain = db()('listings').select('id').where({ slug: slugs.plain });
  const views = async () => {
    await env.services.pageCounters.flush();
    const [row] = await db()('vote_button_views').whereIn('listing_id', plain).sum({ n: 'views' });
    return Number(row!.n ?? 0);
  };
  for (const path of ['/', '/launches', `/launches?week=${isoWeekStart(new Date())}`]) {
    await newcomer.client.get(path);
    const counted = await views();
    const queries: string[] = [];
    // The workflow-start dispatcher and the page counters' timed writes use the same pool in the background: not the page's queries.
    const count = (q: { sql: string }) =>
      void (/\b(workflow_starts|vote_button_views|listing_hourly_counts)\b/.test(q.sql) || queries.push(q.sql));
    db().on('query', count);
    try {
      const page = await newcomer.client.get(path);
      t.is(page.status, 200);
      t.is(page.$(`#vote-${slugs.plain}`).attr('data-vote-state'), 'none');
    } finally {
      db().off('query', count);
    }
    t.true(queries.length <= 2, `${path}:\n${queries.join('\n')}`);
    t.is(await views(), counted + 1, `${path}: the Vote button shown counts once, as a whole render counts it`);
  }
});
