import test from 'ava';
import { load, type CheerioAPI } from 'cheerio';
import { XMLParser } from 'fast-xml-parser';
import ICAL from 'ical.js';
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { completeProfile, PUBLISHABLE } from '../helpers/founders.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { featureListing } from '../helpers/orders.ts';

/**
 * Browsing and sharing over plain HTTP: the front page, categories, the listing page, the head
 * of every page (titles, descriptions, canonical, link previews, JSON-LD), favicon, robots,
 * sitemap, feeds and the launch calendar, each read by a real parser.
 */

let env: TestEnv;
const db = () => env.services.db;
const thisWeek = isoWeekStart(new Date());
const nextWeek = addWeeks(thisWeek, 1);
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });

/** What the tests browse: three live listings this week, one featured, one scheduled for next week, an update. */
let fixture: { top: string; second: string; featured: string; coming: string; owned: { id: number; slug: string }; ownerKey: string };

test.before(async () => {
  env = await startTestEnv(import.meta.url, { BROWSE_CACHE_TTL_MS: '0' });
  const owner = await env.user();
  await completeProfile(env, owner.key);
  const slugOf = async (id: number) => (await db()('listings').where({ id }).first('slug'))!.slug;
  const top = await insertLiveListing(db(), { name: 'Top Rockets', headline: 'Rockets for small teams', url: 'https://top.example.com/' });
  const second = await insertLiveListing(db(), {
    name: 'second sight',
    headline: 'Analytics you can read',
    url: 'https://second.example.com/',
  });
  const featured = await insertLiveListing(db(), { name: 'Featured Forms', url: 'https://forms.example.com/' });
  const ownedId = await insertLiveListing(db(), { name: 'Maker Notes', url: 'https://notes.example.com/', ownerId: owner.userId });
  await db()('listings')
    .where({ id: top })
    .update({ week_votes: 5, votes: 5, categories: ['developer-tools', 'ai'] });
  await db()('listings')
    .where({ id: second })
    .update({ week_votes: 3, votes: 3, categories: ['analytics'] });
  await db()('listings')
    .where({ id: ownedId })
    .update({
      categories: ['productivity'],
      plan: 'paid',
      summary: 'Notes for makers.\n\nWith <b>bold</b> claims.',
      facts: JSON.stringify({ founded_year: 2021, location: 'Dublin' }),
      socials: JSON.stringify({ github: 'https://github.com/maker-notes' }),
    });
  await featureListing(db(), featured);
  const coming = await insertDraftListing(db(), {
    name: 'Coming Soon',
    headline: 'Launches on Monday',
    url: 'https://coming.example.com/',
  });
  await db()('listings')
    .where({ id: coming })
    .update({ status: 'scheduled', launch_week: nextWeek, categories: ['design'] });
  const story = await api(env, 'PUT', `/me/listings/${ownedId}/story`, {
    key: owner.key,
    body: { title: 'How notes began', ...PUBLISHABLE },
  });
  if (story.body.status !== 'published') throw new Error(JSON.stringify(story.body));
  const update = await api(env, 'POST', `/me/listings/${ownedId}/updates`, {
    key: owner.key,
    body: { title: 'Version 2 is out', body: 'Faster notes & <fewer> clicks.' },
  });
  if (update.status !== 201) throw new Error(JSON.stringify(update.body));
  fixture = {
    top: await slugOf(top),
    second: await slugOf(second),
    featured: await slugOf(featured),
    coming: await slugOf(coming),
    owned: { id: ownedId, slug: await slugOf(ownedId) },
    ownerKey: owner.key,
  };
});
test.after.always(() => env?.close());

async function get(path: string, host?: string) {
  const res = await request(env, 'GET', path, { headers: host ? { host } : {} });
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
  return { status: res.status, type: res.headers.get('content-type') ?? '', headers: res.headers, text, $: load(text) };
}

const meta = ($: CheerioAPI, key: string) => $(`meta[property="${key}"], meta[name="${key}"]`).attr('content');
const jsonLd = ($: CheerioAPI) =>
  $('script[type="application/ld+json"]')
    .map((_, el) => JSON.parse($(el).text()) as Record<string, any>)
    .get();

test.serial('the front page ranks this week with logos, votes and vote buttons; featured, next week and categories', async (t) => {
  const { $, status } = await get('/');
  t.is(status, 200);
  t.is($('title').text(), 'Listing Directory');
  const ranked = $('ol.ranking-list > li.card');
  t.deepEqual(
    ranked
      .map((_, li) => $(li).attr('data-listing'))
      .get()
      .slice(0, 2),
    [fixture.top, fixture.second],
  );
  const first = ranked.first();
  t.is(first.find('[data-rank]').text(), '1');
  t.is(first.find('[role="img"]').attr('aria-label'), 'Logo of Top Rockets');
  t.is(first.find('[role="img"]').text(), 'T');
  t.is(first.find('h3 a').attr('href'), `/listings/${fixture.top}`);
  t.is(first.find('.card-body p').text(), 'Rockets for small teams');
  t.is(first.find('[data-votes]').text(), '5');
  t.is(first.find('.vote a').text(), 'Sign in to vote');
  t.is($('li.card[data-listing="' + fixture.second + '"] [role="img"]').text(), 'S');
  // Featured: in its own section and marked in the ranking.
  t.deepEqual(
    $('#featured')
      .parent()
      .find('li.card')
      .map((_, li) => $(li).attr('data-listing'))
      .get(),
    [fixture.featured],
  );
  t.is($(`ol.ranking-list li[data-listing="${fixture.featured}"] .tag`).text(), 'Featured');
  t.is($(`ol.ranking-list li[data-listing="${fixture.top}"] .tag`).length, 0);
  // Next week's launches and the categories with their counts.
  t.deepEqual(
    $('#coming')
      .parent()
      .find('li.card')
      .map((_, li) => $(li).attr('data-listing'))
      .get(),
    [fixture.coming],
  );
  const categories = $('#browse-categories').parent().find('ul.categories li');
  t.true(categories.length >= 4);
  t.is(
    categories
      .filter((_, li) => $(li).find('a').text() === 'Analytics')
      .find('[data-count]')
      .attr('data-count'),
    '1',
  );
  t.is(categories.filter((_, li) => $(li).find('a').text() === 'Games').length, 0, 'empty categories are left out');
  // The ranking as an ItemList.
  const [list] = jsonLd($).filter((d) => d['@type'] === 'ItemList');
  t.is(list!.itemListElement[0].url, `${env.baseUrl}/listings/${fixture.top}`);
  t.is(list!.itemListElement[0].position, 1);
});

test.serial('an empty week says what is coming and how to launch', async (t) => {
  const { $, status } = await get('/', 'makers.localhost');
  t.is(status, 200);
  t.is($('title').text(), 'Makers Weekly');
  t.regex($('main').text(), /No listing has launched this week yet\. Nothing is scheduled for next week yet either\./);
  t.is($('main a[href="/signup"]').text(), 'Create an account');
  t.regex($('#coming').parent().text(), /No launch is scheduled for next week yet/);
  t.is(jsonLd($).length, 0);
});

test.serial('/categories lists every category with its count; a category page ranks its live listings', async (t) => {
  const index = await get('/categories');
  t.is(index.status, 200);
  t.is(index.$('title').text(), 'Categories · Listing Directory');
  const items = index.$('ul.categories li');
  t.is(items.length, 20);
  const count = (name: string) =>
    items
      .filter((_, li) => index.$(li).find('a').text() === name)
      .find('[data-count]')
      .attr('data-count');
  t.is(count('Developer tools'), '1');
  t.is(count('AI'), '1');
  t.is(count('Design'), '0', 'a scheduled listing is not counted');
  t.is(count('Games'), '0');
  t.is(
    items
      .filter((_, li) => index.$(li).find('a').text() === 'AI')
      .find('a')
      .attr('href'),
    '/categories/ai',
  );

  const ai = await get('/categories/ai');
  t.is(ai.status, 200);
  t.is(ai.$('h1').text(), 'AI');
  t.is(ai.$('title').text(), 'AI · Listing Directory');
  t.deepEqual(
    ai
      .$('li.card h2 a')
      .map((_, a) => ai.$(a).text())
      .get(),
    ['Top Rockets'],
  );
  t.is(ai.$('link[rel="alternate"][href="/categories/ai/feed.xml"]').attr('type'), 'application/atom+xml');
  t.is(meta(ai.$, 'og:url'), `${env.baseUrl}/categories/ai`);
  const [list] = jsonLd(ai.$);
  t.is(list!['@type'], 'ItemList');

  const empty = await get('/categories/games');
  t.regex(empty.$('main').text(), /No live listings in this category yet/);
  const unknown = await get('/categories/not-a-category');
  t.is(unknown.status, 404);
  t.regex(unknown.$('main').text(), /no such category|not found/i);
});

test.serial('the listing page: logo, facts, categories, makers, story, updates, socials, votes and its JSON-LD', async (t) => {
  const { $, status } = await get(`/listings/${fixture.owned.slug}`);
  t.is(status, 200);
  t.is($('title').text(), 'Maker Notes · Listing Directory');
  t.is($('.listing-head [role="img"]').attr('aria-label'), 'Logo of Maker Notes');
  t.is($('img.preview').length, 0, 'no preview image without one of ours');
  const facts = $('ul.facts').text();
  t.regex(facts, /Founded: 2021/);
  t.regex(facts, /Based in: Dublin/);
  t.is($('ul.facts a[href="/categories/productivity"]').text(), 'Productivity');
  t.regex($('ul.facts').text(), /Founder story: How notes began/);
  const maker = $('#makers').parent().find('.makers a');
  t.is(maker.attr('href'), `/founders/${(await db()('listings').where({ id: fixture.owned.id }).first('owner_id'))!.owner_id}`);
  t.is(maker.text(), 'Ada Founder');
  t.regex(maker.find('img').attr('src')!, /^\/media\/founders\/\d+\/photo\.webp\?v=/);
  t.is($('#latest-updates').parent().find('h3').text(), 'Version 2 is out');
  t.is($('#latest-updates').parent().find('.update p').last().text(), 'Faster notes & <fewer> clicks.');
  t.is($('#vote-' + fixture.owned.slug + ' a').text(), 'Sign in to vote');
  t.is($('a[href="https://github.com/maker-notes"]').text(), 'GitHub');
  t.regex($('main').text(), /With <b>bold<\/b> claims\./, 'what owners wrote is text');

  t.is(meta($, 'description'), 'Notes for makers. With <b>bold</b> claims.');
  t.is($('link[rel="canonical"]').attr('href'), `${env.baseUrl}/listings/${fixture.owned.slug}`);
  t.is(meta($, 'og:title'), 'Maker Notes · Listing Directory');
  t.is(meta($, 'og:url'), `${env.baseUrl}/listings/${fixture.owned.slug}`);
  t.is(meta($, 'og:type'), 'website');
  // No preview image of its own: the listing's generated card (name, headline, logo).
  const card = `${env.baseUrl}/media/cards/${fixture.owned.slug}.png?v=`;
  t.true(meta($, 'og:image')!.startsWith(card), meta($, 'og:image'));
  t.is(meta($, 'twitter:card'), 'summary_large_image');
  t.is(meta($, 'twitter:image'), meta($, 'og:image'));
  const [app, crumbs] = jsonLd($);
  t.like(app, {
    '@type': 'SoftwareApplication',
    name: 'Maker Notes',
    url: `${env.baseUrl}/listings/${fixture.owned.slug}`,
    operatingSystem: 'Web',
  });
  t.deepEqual(app!.sameAs, ['https://notes.example.com/', 'https://github.com/maker-notes']);
  t.is(app!.publisher.foundingDate, '2021');
  t.is(crumbs!['@type'], 'BreadcrumbList');
  t.deepEqual(
    crumbs!.itemListElement.map((i: { name: string; position: number }) => [i.position, i.name]),
    [
      [1, 'Listing Directory'],
      [2, 'Productivity'],
      [3, 'Maker Notes'],
    ],
  );

  // A preview image of ours shows, and link previews use it.
  await db()('listings')
    .where({ id: fixture.owned.id })
    .update({ image_url: '/media/listings/x/image.webp', logo_url: '/media/listings/x/logo.webp' });
  const withImages = await get(`/listings/${fixture.owned.slug}`);
  t.is(withImages.$('img.preview').attr('alt'), 'Preview of Maker Notes');
  t.is(withImages.$('.listing-head img.logo').attr('alt'), 'Logo of Maker Notes');
  // Both are above the fold on a phone: the preview (its largest paint) is fetched first, the logo not lazily.
  t.is(withImages.$('img.preview').attr('fetchpriority'), 'high');
  t.is(withImages.$('.listing-head img.logo').attr('loading'), undefined);
  t.is(meta(withImages.$, 'og:image'), `${env.baseUrl}/media/listings/x/image.webp`);
  // Somebody else's image address is never put on the page (the CSP allows our own images only).
  await db()('listings')
    .where({ id: fixture.owned.id })
    .update({ image_url: 'https://elsewhere.example/x.png', logo_url: 'https://elsewhere.example/l.png' });
  const foreign = await get(`/listings/${fixture.owned.slug}`);
  t.is(foreign.$('img.preview').length, 0);
  t.is(foreign.$('.listing-head [role="img"]').text(), 'M');
  await db()('listings').where({ id: fixture.owned.id }).update({ image_url: null, logo_url: null });
});

test.serial('JSON-LD cannot be closed by what owners write', async (t) => {
  const id = await insertLiveListing(db(), { name: 'Closer </script><script>alert(1)</script>', url: 'https://closer.example.com/' });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  const { $, text } = await get(`/listings/${slug}`);
  t.false(text.includes('</script><script>alert(1)'));
  t.is(jsonLd($)[0]!.name, 'Closer </script><script>alert(1)</script>');
});

test.serial('every page has its own title, a description, a canonical link, a favicon and the feeds', async (t) => {
  const paths = [
    '/',
    '/launches',
    '/categories',
    '/categories/ai',
    `/listings/${fixture.top}`,
    `/listings/${fixture.owned.slug}`,
    `/stories/${fixture.owned.slug}`,
    '/updates',
    '/signin',
    '/signup',
    '/docs',
  ];
  const titles: string[] = [];
  for (const path of paths) {
    const { $, status } = await get(path);
    t.is(status, 200, path);
    const title = $('title').text();
    titles.push(title);
    t.is(title.split('Listing Directory').length - 1, 1, `${path}: the site's name once in "${title}"`);
    t.true((meta($, 'description') ?? '').length > 20, `${path} has a description`);
    t.is($('link[rel="canonical"]').attr('href'), env.baseUrl + path.replace(/\?.*$/, ''), path);
    t.is($('link[rel="icon"][type="image/svg+xml"]').attr('href'), '/favicon.svg', path);
    t.is($('link[rel="alternate"][type="application/atom+xml"][href="/feeds/launches.xml"]').length, 1, path);
    t.is($('link[rel="alternate"][type="application/feed+json"][href="/feeds/launches.json"]').length, 1, path);
  }
  t.is(new Set(titles).size, titles.length, `titles are unique: ${titles.join(' | ')}`);
  // Shared pages carry link-preview tags; the sign-in form does not need them.
  for (const path of ['/', '/launches', '/categories/ai', `/stories/${fixture.owned.slug}`]) {
    const { $ } = await get(path);
    for (const key of ['og:title', 'og:description', 'og:image', 'og:url', 'og:type', 'twitter:card'])
      t.truthy(meta($, key), `${path} ${key}`);
  }
  t.is(meta((await get(`/stories/${fixture.owned.slug}`)).$, 'og:type'), 'article');
  const founderId = (await db()('listings').where({ id: fixture.owned.id }).first('owner_id'))!.owner_id!;
  const founder = await get(`/founders/${founderId}`);
  t.is(meta(founder.$, 'og:type'), 'profile');
  t.is(meta(founder.$, 'og:image'), `${env.baseUrl}/media/founders/${founderId}/card.png`);
  t.is((await get('/launches')).$('link[rel="alternate"][type="text/calendar"]').attr('href'), '/launches.ics');
  t.is((await get('/updates')).$('link[rel="alternate"][href="/feeds/updates.xml"]').length, 1);
  // A 404 page has a title of its own too.
  t.is((await get('/no-such-page')).$('title').text(), 'Not found · Listing Directory');
  // The other site names itself.
  t.is((await get('/categories', 'makers.localhost')).$('title').text(), 'Categories · Makers Weekly');
  t.is(
    (await get('/categories', 'makers.localhost')).$('link[rel="canonical"]').attr('href'),
    `${new URL(env.baseUrl).protocol}//makers.localhost:${new URL(env.baseUrl).port}/categories`,
  );
});

test.serial('the favicon and the default share image are served as PNG/SVG, cacheable', async (t) => {
  for (const [path, type, size] of [
    ['/favicon.ico', 'image/png', 32],
    ['/favicon.png', 'image/png', 32],
    ['/apple-touch-icon.png', 'image/png', 180],
  ] as const) {
    const res = await fetch(env.baseUrl + path);
    t.is(res.status, 200, path);
    t.is(res.headers.get('content-type'), type);
    t.regex(res.headers.get('cache-control')!, /public, max-age=\d+/);
    const image = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    t.deepEqual([image.format, image.width, image.height], ['png', size, size], path);
    const again = await fetch(env.baseUrl + path, { headers: { 'if-none-match': res.headers.get('etag')! } });
    t.is(again.status, 304);
  }
  const share = await fetch(`${env.baseUrl}/share/default.png`);
  const image = await sharp(Buffer.from(await share.arrayBuffer())).metadata();
  t.deepEqual([image.format, image.width, image.height], ['png', 1200, 630]);
  const svg = await fetch(`${env.baseUrl}/favicon.svg`);
  t.is(svg.headers.get('content-type'), 'image/svg+xml');
  t.regex(await svg.text(), /^<svg /);
});

test.serial('robots.txt names the sitemap; the sitemap lists listings, categories, weeks, stories and founders with lastmod', async (t) => {
  const robots = await get('/robots.txt');
  t.is(robots.type, 'text/plain; charset=utf-8');
  t.regex(robots.text, new RegExp(`^Sitemap: ${env.baseUrl}/sitemap\\.xml$`, 'm'));
  t.regex(robots.text, /^Disallow: \/account\/$/m);

  const sitemap = await get('/sitemap.xml');
  t.is(sitemap.status, 200);
  t.is(sitemap.type, 'application/xml; charset=utf-8');
  const doc = xml.parse(sitemap.text);
  t.is(doc.urlset['@xmlns'], 'http://www.sitemaps.org/schemas/sitemap/0.9');
  const urls: { loc: string; lastmod?: string }[] = [doc.urlset.url].flat();
  const locs = urls.map((u) => u.loc);
  const founderId = (await db()('listings').where({ id: fixture.owned.id }).first('owner_id'))!.owner_id!;
  for (const path of [
    '/',
    '/launches',
    '/categories',
    `/listings/${fixture.top}`,
    `/listings/${fixture.owned.slug}`,
    '/categories/ai',
    '/categories/productivity',
    `/launches?week=${thisWeek}`,
    `/stories/${fixture.owned.slug}`,
    `/founders/${founderId}`,
  ]) {
    t.true(locs.includes(env.baseUrl + path), path);
  }
  t.false(locs.includes(`${env.baseUrl}/listings/${fixture.coming}`), 'not live: not listed');
  t.false(locs.includes(`${env.baseUrl}/categories/games`), 'empty categories are not listed');
  const listing = urls.find((u) => u.loc === `${env.baseUrl}/listings/${fixture.top}`)!;
  t.false(Number.isNaN(Date.parse(listing.lastmod!)));
  t.is((await get('/sitemaps/1.xml')).status, 404, 'no index files while one file holds every URL');
  // Crawlers ask for gzip: the same document, compressed.
  const zipped = await new Promise<http.IncomingMessage & { bytes: Buffer }>((resolve, reject) =>
    http
      .get(`${env.baseUrl}/sitemap.xml`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Object.assign(res, { bytes: Buffer.concat(chunks) })));
      })
      .on('error', reject),
  );
  t.is(zipped.headers['content-encoding'], 'gzip');
  t.is(zipped.headers.vary, 'Cookie, Accept-Encoding', 'a session cookie makes it another answer');
  t.is(gunzipSync(zipped.bytes).toString(), sitemap.text);
});

test.serial('feeds: launches as Atom and JSON Feed, updates, a category; unknown categories are 404', async (t) => {
  const atom = await get('/feeds/launches.xml');
  t.is(atom.type, 'application/atom+xml; charset=utf-8');
  const feed = xml.parse(atom.text).feed;
  t.is(feed.title['#text'] ?? feed.title, 'New launches on Listing Directory');
  const entries = [feed.entry].flat();
  const titles = entries.map((e: any) => e.title['#text'] ?? e.title);
  for (const name of ['Top Rockets', 'second sight', 'Featured Forms', 'Maker Notes']) t.true(titles.includes(name), name);
  t.false(titles.includes('Coming Soon'));
  const top = entries.find((e: any) => (e.title['#text'] ?? e.title) === 'Top Rockets');
  t.is([top.link].flat()[0]['@href'], `${env.baseUrl}/listings/${fixture.top}`);

  const json = await get('/feeds/launches.json');
  t.is(json.type, 'application/feed+json; charset=utf-8');
  const jf = JSON.parse(json.text);
  t.regex(jf.version, /^https:\/\/jsonfeed\.org\/version\/1(\.1)?$/);
  t.is(jf.feed_url, `${env.baseUrl}/feeds/launches.json`);
  const item = jf.items.find((i: any) => i.title === 'Top Rockets');
  t.is(item.url, `${env.baseUrl}/listings/${fixture.top}`);
  t.false(Number.isNaN(Date.parse(item.date_published)));

  const updates = xml.parse((await get('/feeds/updates.xml')).text).feed;
  const update = [updates.entry].flat()[0];
  t.is(update.title['#text'] ?? update.title, 'Maker Notes: Version 2 is out');
  t.regex(update.content['#text'] ?? update.content, /Faster notes &amp; &lt;fewer&gt; clicks\./);

  const category = xml.parse((await get('/categories/analytics/feed.xml')).text).feed;
  t.deepEqual(
    [category.entry].flat().map((e: any) => e.title['#text'] ?? e.title),
    ['second sight'],
  );
  t.is((await get('/categories/nope/feed.xml')).status, 404);
});

test.serial('the launch calendar has one all-day event per scheduled launch, on its Monday', async (t) => {
  const res = await get('/launches.ics');
  t.is(res.type, 'text/calendar; charset=utf-8');
  const calendar = new ICAL.Component(ICAL.parse(res.text));
  const events = calendar.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
  t.is(events.length, 1);
  const [event] = events;
  t.is(event!.summary, 'Coming Soon launches');
  t.true(event!.startDate.isDate, 'all-day');
  t.is(event!.startDate.toString(), nextWeek);
  t.is(event!.component.getFirstPropertyValue('url'), `${env.baseUrl}/listings/${fixture.coming}`);
});

test.serial('owners choose categories with update_my_listing; unknown ones are refused by path', async (t) => {
  const res = await api(env, 'PATCH', `/me/listings/${fixture.owned.id}`, {
    key: fixture.ownerKey,
    body: { categories: ['games', 'productivity', 'games'] },
  });
  t.is(res.status, 200);
  t.deepEqual(res.body.categories, ['games', 'productivity']);
  const page = await get('/categories/games');
  t.deepEqual(
    page
      .$('li.card h2 a')
      .map((_, a) => page.$(a).text())
      .get(),
    ['Maker Notes'],
  );

  const bad = await api(env, 'PATCH', `/me/listings/${fixture.owned.id}`, { key: fixture.ownerKey, body: { categories: ['rockets'] } });
  t.is(bad.status, 400);
  t.is(bad.body.errors[0].path, 'categories.0');
  const tooMany = await api(env, 'PATCH', `/me/listings/${fixture.owned.id}`, {
    key: fixture.ownerKey,
    body: { categories: ['ai', 'design', 'data', 'games', 'travel', 'hr'] },
  });
  t.is(tooMany.status, 400);
  const versions = await api(env, 'GET', `/me/listings/${fixture.owned.id}/versions`, { key: fixture.ownerKey });
  t.deepEqual(versions.body.items[0].changes.categories, { before: ['productivity'], after: ['games', 'productivity'] });
  await api(env, 'PATCH', `/me/listings/${fixture.owned.id}`, { key: fixture.ownerKey, body: { categories: ['productivity'] } });
});
