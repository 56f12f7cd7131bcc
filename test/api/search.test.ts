import test from 'ava';
import type { Db } from '../../src/db/knex.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { featureListing } from '../helpers/orders.ts';

// Search paths: tiers from the text indexes (few matches), tiers walked in vote order with the
// index as fallback (many), prefixes expanded to lexemes, featured listings first.
let env: TestEnv;
test.before(async () => {
  // Every answer fresh from the database: these tests change listings between searches.
  env = await startTestEnv(import.meta.url, { SEARCH_CACHE_TTL_MS: '0' });
});
test.after.always(() => env?.close());

interface Item {
  id: number;
  name: string;
  votes: number;
  featured: boolean;
}

async function search(query: string): Promise<{ items: Item[]; total: number; total_capped: boolean }> {
  const res = await api(env, 'GET', `/listings?${query}`);
  if (res.status !== 200) throw new Error(`search ${query}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Live listings made in one statement: `name`, `headline` and `summary` are SQL over g. */
async function insertMany(
  db: Db,
  prefix: string,
  count: number,
  sql: { name: string; headline?: string; summary?: string; votes: string },
) {
  const site = await db('sites').where({ key: 'main' }).first('id');
  await db.raw(
    `INSERT INTO listings (site_id, slug, company_domain, name, url, status, headline, summary, votes, launch_week, live_at)
     SELECT ?, ? || g, ? || g || '.example.org', ${sql.name}, 'https://' || ? || g || '.example.org/', 'live',
            ${sql.headline ?? 'NULL'}, ${sql.summary ?? 'NULL'}, ${sql.votes}, ?, now()
     FROM generate_series(1, ?) g`,
    [site!.id, `${prefix}-`, prefix, prefix, isoWeekStart(new Date()), count],
  );
}

test('few matches rank by where the words matched, then by votes, and page consistently', async (t) => {
  const db = env.services.db;
  const n1 = await insertLiveListing(db, { name: 'Quillon Alpha', votes: 3 });
  const n2 = await insertLiveListing(db, { name: 'Quillon Beta', votes: 7 });
  const h1 = await insertLiveListing(db, { name: 'Henna Tools', headline: 'Quillon tools for teams', votes: 50 });
  const h2 = await insertLiveListing(db, { name: 'Hops Works', headline: 'Quillons for everyone', votes: 20 });
  const s1 = await insertLiveListing(db, { name: 'Sable Shop', summary: 'Made with a quillon', votes: 100 });
  const all = await search('q=quillon');
  t.deepEqual(
    all.items.map((l) => l.id),
    [n2, n1, h1, h2, s1],
    'name matches by votes, then headline (stemmed), then summary, whatever the votes',
  );
  t.is(all.total, 5);
  t.false(all.total_capped);
  t.true(all.items.every((l) => l.featured === false));
  const pages = [];
  for (const page of [1, 2, 3]) pages.push(...(await search(`q=quillon&per_page=2&page=${page}`)).items.map((l) => l.id));
  t.deepEqual(pages, [n2, n1, h1, h2, s1]);
  t.deepEqual(
    (await search('q=QUILL%20bet')).items.map((l) => l.id),
    [n2],
    'every word as a prefix, any case',
  );
  t.deepEqual((await search('q=quilon')).items[0]?.id, n2, 'a misspelt word is corrected');
  t.deepEqual((await search('q=qiullon%20beta')).items[0]?.id, n2, 'swapped letters too');
  const zelk = await insertLiveListing(db, { name: 'Zelk Labs', votes: 1 });
  t.deepEqual(
    (await search('q=zlek')).items.map((l) => l.id),
    [zelk],
    'also in a short word, where trigrams alone miss it',
  );
  t.deepEqual((await search('q=zzlekk')).items, [], 'two edits away is too far');
});

test('many matches: the page comes from the tiers in order, also when a tier holds only little-voted listings', async (t) => {
  const db = env.services.db;
  // 5,150 summary matches with many votes fill the vote walk (5,000 listings deep); name and headline matches have few,
  // so their tiers come from the text index after the walk finds none.
  await insertMany(db, 'vel-s', 5150, { name: `'Item ' || g`, summary: `'Vellum paper'`, votes: '1000 + g' });
  await insertMany(db, 'vel-n', 30, { name: `'Vellum Co ' || g`, votes: 'g' });
  await insertMany(db, 'vel-h', 10, { name: `'Sheet ' || g`, headline: `'Vellum sheets'`, votes: '500 + g' });
  const rows: Array<{ id: number; slug: string; votes: number }> = await db('listings')
    .where('slug', 'like', 'vel-%')
    .select('id', 'slug', 'votes');
  const tierOf = (slug: string) => ['vel-n', 'vel-h', 'vel-s'].indexOf(slug.slice(0, 5));
  const expected = rows.sort((a, b) => tierOf(a.slug) - tierOf(b.slug) || b.votes - a.votes || a.id - b.id).map((r) => r.id);

  const first = await search('q=vellum&per_page=100');
  t.deepEqual(
    first.items.map((l) => l.id),
    expected.slice(0, 100),
  );
  t.is(first.total, 100);
  t.true(first.total_capped, 'more than 100 matches: the total is capped and says so');
  const third = await search('q=vellum&per_page=100&page=3');
  t.deepEqual(
    third.items.map((l) => l.id),
    expected.slice(200, 300),
    'results go on past the counted total',
  );
  t.deepEqual(
    (await search('q=vellum%20sheets&per_page=100')).items.map((l) => l.id),
    expected.slice(30, 40),
  );
  const last = await search('q=vellum&per_page=100&page=10');
  t.is(last.items.length, 100);
  t.deepEqual((await search('q=vellum&per_page=100&page=11')).items, [], 'nothing past the first 1,000');
  const page = await fetch(`${env.baseUrl}/?q=vellum`);
  const html = await page.text();
  t.regex(html, /More than 100 listings match/, 'the web search says the total is a lower bound');
  t.regex(html, /rel="next"/);
});

test('a prefix that starts many words still matches all of them', async (t) => {
  const db = env.services.db;
  await insertMany(db, 'zorb', 45, { name: `'Zorbix' || g`, votes: 'g' });
  const found = await search('q=zorb&per_page=100');
  t.is(found.items.length, 45);
  t.is(found.total, 45);
  t.deepEqual(
    (await search('q=zorbix4&per_page=100')).items.map((l) => l.name),
    ['Zorbix45', 'Zorbix44', 'Zorbix43', 'Zorbix42', 'Zorbix41', 'Zorbix40', 'Zorbix4'],
  );
});

test('words of listings that go live or change are found at once', async (t) => {
  const db = env.services.db;
  const id = await insertLiveListing(db, { name: 'Plinthwerk', headline: 'Stone plinths', votes: 1 });
  t.deepEqual(
    (await search('q=plinthw')).items.map((l) => l.id),
    [id],
  );
  await db('listings').where({ id }).update({ name: 'Grommetry', url: 'https://grommetry.example.net/' });
  t.deepEqual(
    (await search('q=grommet')).items.map((l) => l.id),
    [id],
  );
  t.deepEqual((await search('q=plinthw')).items, [], 'the old name no longer matches');
  t.deepEqual((await search('q=qwxzvj')).items, [], 'a word that starts nothing finds nothing');
});

test.serial('listings featured this week come first, marked featured', async (t) => {
  const db = env.services.db;
  const a = await insertLiveListing(db, { name: 'Marzipan One', votes: 50 });
  const b = await insertLiveListing(db, { name: 'Marzipan Two', votes: 40 });
  const old = await insertLiveListing(db, { name: 'Marzipan Old', votes: 30 });
  const f = await insertLiveListing(db, { name: 'Fondant Works', summary: 'We make marzipan', votes: 0 });
  const other = await insertLiveListing(db, { name: 'Nougat Place', votes: 0 });
  await featureListing(db, f);
  await featureListing(db, other);
  await featureListing(db, old);
  const lastWeek = isoWeekStart(new Date(Date.now() - 7 * 86_400_000));
  await db('featured_placements').where({ listing_id: old }).update({ week_start: lastWeek });

  const found = await search('q=marzipan');
  t.deepEqual(
    found.items.map((l) => [l.id, l.featured]),
    [
      [f, true],
      [a, false],
      [b, false],
      [old, false],
    ],
    'a summary match featured this week comes first; last week’s placement counts no more',
  );
  t.is(found.total, 4);
  t.deepEqual(
    (await search('q=marzipan&per_page=1&page=2')).items.map((l) => l.id),
    [a],
    'the featured listing is not repeated on later pages',
  );
  const listed = await search('per_page=100');
  t.deepEqual(
    listed.items.slice(0, 2).map((l) => [l.id, l.featured]),
    [
      [f, true],
      [other, true],
    ],
    'without a query too',
  );
  t.is(listed.items.filter((l) => l.id === f).length, 1);
  await db('listings').where({ id: f }).update({ status: 'unlisted' });
  t.deepEqual(
    (await search('q=marzipan')).items.map((l) => l.id),
    [a, b, old],
    'an unlisted featured listing is not shown',
  );
});
