import { randomBytes } from 'node:crypto';
import test from 'ava';
import { XMLParser } from 'fast-xml-parser';
import type { Browser } from 'playwright-core';
import { freezeWeek } from '../../src/domain/ranking/weekly-close.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * Every closed week stays findable: `/launches/{year}/{week}` keeps a week's final ranking (votes
 * counted, discounted and removed, the featured launches), `/best/{year}/{month}` and
 * `/best/{year}` the best launches of the weeks that started in them, all in the sitemap; weeks not
 * over and weeks that do not exist are 404 pages in words.
 */

// Thursday 26 Nov 2026: the week of 16 Nov is over (W47), as are the weeks of October.
const clock = new ManualClock(new Date('2026-11-26T12:00:00Z'));
const NOV_16 = '2026-11-16';
const OCT_26 = '2026-10-26';
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
const db = () => env.services.db;
const unique = () => randomBytes(3).toString('hex');

/** Live listings launched in `monday` with these launch-week votes, frozen by the weekly close. */
async function closedWeek(monday: string, votes: number[], prefix: string) {
  const site = (await db()('sites').where({ key: 'main' }).first('id'))!.id;
  const ids: number[] = [];
  for (const [n, v] of votes.entries()) {
    const id = await insertLiveListing(db(), {
      name: `${prefix} ${n + 1} ${unique()}`,
      url: `https://${prefix.toLowerCase()}${n}-${unique()}.example/`,
    });
    await db()('listings')
      .where({ id })
      .update({ launch_week: monday, week_votes: v, headline: `${prefix} headline ${n + 1}` });
    ids.push(id);
  }
  await freezeWeek(db(), site, monday, clock.now());
  return Promise.all(ids.map(async (id) => (await db()('listings').where({ id }).first('slug', 'name'))!));
}

let november: { slug: string; name: string }[];
let october: { slug: string; name: string }[];

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '0' }, { clock }));
  november = await closedWeek(NOV_16, [7, 12, 3, 1], 'Nov');
  october = await closedWeek(OCT_26, [20, 0], 'Oct');
});
test.after.always(() => close?.());

test('a closed week keeps its final ranking at /launches/{year}/{week}, with its top three and the votes of each', async (t) => {
  t.is(isoWeekLabel(NOV_16), '2026-W47');
  const page = await new WebClient(env.baseUrl).get('/launches/2026/47');
  t.is(page.status, 200);
  t.is(page.$('h1').text(), 'Launches of the week of 16 Nov 2026: final results');
  t.is(page.$('link[rel="canonical"]').attr('href'), `${env.baseUrl}/launches/2026/47`);
  t.deepEqual(
    page
      .$('.winners li')
      .map((_, li) => page.$(li).text().replace(/\s+/g, ' ').trim())
      .get(),
    [
      `1st place: ${november[1]!.name} — Nov headline 2 (12 votes)`,
      `2nd place: ${november[0]!.name} — Nov headline 1 (7 votes)`,
      `3rd place: ${november[2]!.name} — Nov headline 3 (3 votes)`,
    ],
  );
  t.deepEqual(
    page
      .$('table.ranking tbody tr')
      .map((_, tr) => page.$(tr).attr('data-listing'))
      .get(),
    [1, 0, 2, 3].map((n) => november[n]!.slug),
  );
  t.regex(page.$('meta[name="description"]').attr('content') ?? '', /1st place Nov 2/);
  t.is(page.$('a[href="/best/2026/11"]').length, 1, 'linked to its month');
  // The ISO week-year: 28 Dec 2026 is in week 53 of 2026, and 4 Jan 2027 in week 1 of 2027.
  t.is((await new WebClient(env.baseUrl).get('/launches/2026/53')).status, 404, 'not over yet');
});

test('weeks not over, weeks that do not exist and nonsense are 404 pages in words; an empty closed week says so', async (t) => {
  const web = new WebClient(env.baseUrl);
  const thisWeek = await web.get(`/launches/2026/${Number(isoWeekLabel(isoWeekStart(clock.now())).slice(6))}`);
  t.is(thisWeek.status, 404);
  t.regex(thisWeek.$('main').text(), /is not over yet, so it has no final results/);
  for (const path of [
    '/launches/2025/53',
    '/launches/2026/0',
    '/launches/2026/54',
    '/launches/26/1',
    '/launches/2026/x',
    '/best/2026/13',
    '/best/2026/0',
    '/best/1999',
    '/best/abcd',
  ]) {
    t.is((await web.get(path)).status, 404, path);
  }
  const empty = await web.get(`/launches/2026/${Number(isoWeekLabel(addWeeks(NOV_16, -1)).slice(6))}`);
  t.is(empty.status, 200);
  t.regex(empty.$('main').text(), /No launches that week\./);
});

test('the best of a month and of a year rank the launches of the weeks that started in them', async (t) => {
  const web = new WebClient(env.baseUrl);
  const month = await web.get('/best/2026/11');
  t.is(month.status, 200);
  t.is(month.$('h1').text(), 'Best of November 2026');
  t.deepEqual(
    month
      .$('ol.best-of li')
      .map((_, li) => month.$(li).attr('data-listing'))
      .get(),
    [1, 0, 2, 3].map((n) => november[n]!.slug),
  );
  t.regex(month.$('ol.best-of li').first().text(), /12 votes, 1st place in the week of 16 Nov 2026/);
  t.is(month.$('.archive-weeks a[href="/launches/2026/47"]').length, 1);

  const year = await web.get('/best/2026');
  t.is(year.$('h1').text(), 'Best of 2026');
  t.deepEqual(
    year
      .$('ol.best-of li')
      .map((_, li) => year.$(li).attr('data-listing'))
      .get(),
    [october[0]!.slug, ...[1, 0, 2, 3].map((n) => november[n]!.slug)],
    'a listing with no vote is not among the best',
  );
  const index = await web.get('/best');
  t.deepEqual(
    index
      .$('main a')
      .map((_, a) => index.$(a).attr('href'))
      .get(),
    ['/best/2026', '/best/2026/11', '/best/2026/10'],
  );
  t.regex((await web.get('/best/2025')).$('main').text(), /No launch got a vote in a week that started in 2025\./);
});

test('the sitemap lists every closed week by its lasting page, and the months and years; /launches?week= points there', async (t) => {
  const web = new WebClient(env.baseUrl);
  const sitemap = (await web.get('/sitemap.xml')).text;
  for (const path of ['/launches/2026/47', '/launches/2026/44', '/best', '/best/2026', '/best/2026/11', '/best/2026/10']) {
    t.true(sitemap.includes(`<loc>${env.baseUrl}${path}</loc>`), path);
  }
  t.false(sitemap.includes(`/launches?week=${NOV_16}`), 'a closed week is listed once, by its lasting page');
  const live = await web.get(`/launches?week=${NOV_16}`);
  t.is(live.$('link[rel="canonical"]').attr('href'), `${env.baseUrl}/launches/2026/47`);
});

for (const width of [390, 1280]) {
  test(`the archive pages fit ${width} px and pass axe`, async (t) => {
    const page = await browser.newPage({ viewport: { width, height: 800 }, baseURL: env.baseUrl });
    for (const path of ['/launches/2026/47', '/best/2026/11', '/best/2026', '/best']) {
      await page.goto(path);
      t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${path} fits`);
      t.deepEqual(await seriousViolations(page), [], `axe on ${path}`);
    }
    await page.close();
  });
}

test('a top-three listing mentions its place on its page and has a winner’s badge its makers embed; others have none', async (t) => {
  const web = new WebClient(env.baseUrl);
  const winner = await web.get(`/listings/${november[1]!.slug}`);
  t.is(winner.$('[data-place="1"]').text().replace(/\s+/g, ' ').trim(), '1st place in the week of 16 Nov 2026');
  t.is(winner.$('[data-place="1"] a').attr('href'), '/launches/2026/47');
  t.is((await web.get(`/listings/${november[3]!.slug}`)).$('[data-place]').length, 0, 'the fourth has no place to mention');

  const badge = await web.get(`/badges/${november[2]!.slug}/winner.svg?theme=dark`);
  t.is(badge.status, 200);
  t.is(badge.headers.get('content-type'), 'image/svg+xml');
  t.regex(badge.text, /aria-label="3rd place on .+ in the week of 16 Nov 2026"/);
  t.is((await web.get(`/badges/${november[3]!.slug}/winner.svg`)).status, 404);
  t.is((await web.get(`/badges/${november[2]!.slug}/winner.svg?theme=neon`)).status, 400);
  t.is((await web.get('/badges/NOT_A_SLUG/winner.svg')).status, 404);

  // The owner's get_badges gives the winner's snippets, linking to the week's lasting page.
  const owner = await env.user(['account:read']);
  await db()('listings').where({ slug: november[0]!.slug }).update({ owner_id: owner.userId });
  const id = (await db()('listings').where({ slug: november[0]!.slug }).first('id'))!.id;
  const res = await api(env, 'GET', `/me/listings/${id}/badges`, { key: owner.key });
  t.is(res.status, 200);
  t.like(res.body.winner, { week_start: NOV_16, rank: 2, archive_url: `${env.services.config.baseUrl}/launches/2026/47` });
  t.regex(res.body.winner.badges[0].html, /winner\.svg\?theme=light/);
});

test('the weeks’ feed lists each closed week by its lasting page with its top three, newest first; archive pages offer it', async (t) => {
  const web = new WebClient(env.baseUrl);
  const res = await web.get('/feeds/weeks.xml');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/atom+xml; charset=utf-8');
  const feed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(res.text).feed;
  const entries = [feed.entry].flat();
  t.deepEqual(
    entries.map((e: any) => [e.link['@href'], e.updated]),
    [
      [`${env.baseUrl}/launches/2026/47`, '2026-11-23T00:00:00.000Z'],
      [`${env.baseUrl}/launches/2026/44`, '2026-11-02T00:00:00.000Z'],
    ],
  );
  t.regex(entries[0].title['#text'] ?? entries[0].title, /^Week of 16 Nov 2026: 1st Nov 2 .+, 2nd Nov 1 .+, 3rd Nov 3 /);
  t.is(feed.author.name, 'Listing Directory');
  for (const path of ['/launches/2026/47', '/best/2026/11', '/best']) {
    t.is((await web.get(path)).$('link[rel="alternate"][href="/feeds/weeks.xml"]').length, 1, path);
  }
});
