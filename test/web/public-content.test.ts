import test from 'ava';
import { load } from 'cheerio';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { completeProfile, ownedListing, PUBLISHABLE, words } from '../helpers/founders.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { WebClient } from '../helpers/web.ts';

/** The public pages of owner content over plain HTTP: 404s, escaping, links, the feed's paging and site. */

let env: TestEnv;
let web: WebClient;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  web = new WebClient(env.baseUrl);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const HOSTILE = '<script>alert(1)</script>';

/** An owner with a complete profile and a listing whose story is published. */
async function publishedStory(storyFields: Record<string, string> = PUBLISHABLE) {
  const owner = await env.user();
  await completeProfile(env, owner.key);
  const listing = await ownedListing(env, owner.userId, 'Story Pages');
  const res = await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body: { title: 'Our way', ...storyFields } });
  if (res.body.status !== 'published') throw new Error(JSON.stringify(res.body));
  return { owner, listing };
}

/** A GET with a Host header (fetch cannot set one): the site is picked by host. */
async function page(path: string, host?: string) {
  const res = await request(env, 'GET', path, { headers: host ? { host } : {} });
  return { status: res.status, text: String(res.body), $: load(String(res.body)), type: res.headers.get('content-type') };
}

test('a story page exists only while published; its text is escaped and split into paragraphs', async (t) => {
  const { owner, listing } = await publishedStory({
    ...PUBLISHABLE,
    how_started: `${words(110, 'a')}\n\nLine one ${HOSTILE}\nline two`,
  });
  const res = await web.get(`/stories/${listing.slug}`);
  t.is(res.status, 200);
  t.false(res.text.includes('<script>alert'));
  const paragraphs = res.$('#story-how_started').parent().find('p');
  t.is(paragraphs.length, 2);
  t.is(paragraphs.eq(1).html(), 'Line one &lt;script&gt;alert(1)&lt;/script&gt;<br>line two');
  t.is(res.$('.byline a[href^="/founders/"]').attr('href'), `/founders/${owner.userId}`);
  t.is(res.$('.byline a[href^="/listings/"]').attr('href'), `/listings/${listing.slug}`);
  t.regex(res.$('img.founder-photo').attr('src')!, new RegExp(`^/media/founders/${owner.userId}/photo\\.webp\\?v=`));

  // A draft, an unknown slug and an unlisted listing's story are HTML 404 pages.
  const draftOwner = await env.user();
  const draft = await ownedListing(env, draftOwner.userId, 'Draft Story');
  await api(env, 'PUT', `/me/listings/${draft.id}/story`, { key: draftOwner.key, body: PUBLISHABLE });
  await db()('listings').where({ id: listing.id }).update({ status: 'unlisted' });
  for (const slug of [draft.slug, 'no-such-listing', listing.slug, '%3Cscript%3E']) {
    const missing = await web.get(`/stories/${slug}`);
    t.is(missing.status, 404, slug);
    t.regex(missing.headers.get('content-type')!, /^text\/html/);
    t.is(missing.$('h1').text(), 'Not found');
  }
});

test('the story of a listing that is not live is not public: no page, no link from the founder page', async (t) => {
  const { owner, listing } = await publishedStory();
  for (const status of ['draft', 'awaiting_badge', 'awaiting_profile', 'scheduled', 'unlisted'] as const) {
    await db()('listings').where({ id: listing.id }).update({ status });
    const story = await web.get(`/stories/${listing.slug}`);
    t.is(story.status, 404, status);
    t.false(story.text.includes('Our way'), status);
    const founder = await web.get(`/founders/${owner.userId}`);
    t.is(founder.status, 200, status);
    t.is(founder.$(`a[href="/stories/${listing.slug}"]`).length, 0, status);
    t.false(founder.text.includes('Our way'), status);
    // The owner is told it is not readable yet.
    const own = await api(env, 'GET', `/me/listings/${listing.id}/story`, { key: owner.key });
    t.like(own.body, { status: 'published', visible: false }, status);
  }
  await db()('listings').where({ id: listing.id }).update({ status: 'live' });
  t.is((await web.get(`/stories/${listing.slug}`)).status, 200);
  t.is((await web.get(`/founders/${owner.userId}`)).$(`a[href="/stories/${listing.slug}"]`).text(), 'Our way');
  t.like((await api(env, 'GET', `/me/listings/${listing.id}/story`, { key: owner.key })).body, { status: 'published', visible: true });
});

test('a story published while the listing is a draft stays hidden until the listing goes live', async (t) => {
  const owner = await env.user();
  await completeProfile(env, owner.key);
  const listing = await ownedListing(env, owner.userId, 'Unlaunched');
  await db()('listings').where({ id: listing.id }).update({ status: 'draft' });
  const res = await api(env, 'PUT', `/me/listings/${listing.id}/story`, {
    key: owner.key,
    body: { title: 'Secret plans', ...PUBLISHABLE },
  });
  t.like(res.body, { status: 'published', visible: false });
  t.is((await web.get(`/stories/${listing.slug}`)).status, 404);
  t.is((await web.get(`/listings/${listing.slug}`)).status, 404);
  t.false((await web.get(`/founders/${owner.userId}`)).text.includes('Secret plans'));
});

test('a founder page exists only for a complete profile and shows this site’s interview answers', async (t) => {
  const { owner, listing } = await publishedStory();
  await api(env, 'PATCH', '/me/founder-profile', {
    key: owner.key,
    body: { bio: `${HOSTILE} ${words(25)}`, links: ['https://ada.example.com/?a=1&b=2'] },
  });
  const [main, makers] = await Promise.all(
    ['main', 'makers'].map(async (key) =>
      db()('interview_questions as q').join('sites as s', 's.id', 'q.site_id').where('s.key', key).first('q.id', 'q.text'),
    ),
  );
  await api(env, 'PUT', '/me/interview', { key: owner.key, body: { answers: [{ question_id: main.id, answer: 'On main.' }] } });
  await api(env, 'PUT', '/me/interview', {
    key: owner.key,
    body: { answers: [{ question_id: makers.id, answer: 'On makers.' }] },
    headers: { host: 'makers.localhost' },
  });

  const res = await page(`/founders/${owner.userId}`);
  t.is(res.status, 200);
  t.false(res.text.includes('<script>alert'));
  t.is(res.$('.bio p').text(), `${HOSTILE} ${words(25)}`);
  t.is(res.$('a[rel~="me"]').attr('href'), 'https://ada.example.com/?a=1&b=2');
  t.deepEqual(
    res
      .$('.answer p')
      .map((_, p) => res.$(p).text())
      .get(),
    ['On main.'],
  );
  t.is(res.$(`a[href="/stories/${listing.slug}"]`).text(), 'Our way');
  const onMakers = await page(`/founders/${owner.userId}`, 'makers.localhost');
  t.deepEqual(
    onMakers
      .$('.answer p')
      .map((_, p) => onMakers.$(p).text())
      .get(),
    ['On makers.'],
  );

  const incomplete = await env.user();
  await api(env, 'PATCH', '/me/founder-profile', { key: incomplete.key, body: { display_name: 'Half Done', bio: words(30) } });
  for (const id of [String(incomplete.userId), '0', 'abc', '99999999999', '2147483648', '-1']) {
    t.is((await web.get(`/founders/${id}`)).status, 404, id);
  }
});

test('the latest-updates page: the request host’s site, newest first, 20 a page', async (t) => {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Feed Co', ownerId: owner.userId });
  const makersId = await insertLiveListing(db(), { name: 'Makers Only', ownerId: owner.userId, site: 'makers' });
  const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute)).toISOString();
  const site = (key: string) =>
    db()('sites')
      .where({ key })
      .first('id')
      .then((s) => s!.id);
  const mainId = await site('main');
  await db()('listing_updates').insert(
    Array.from({ length: 21 }, (_, i) => ({
      listing_id: listingId,
      site_id: mainId,
      title: `Update ${i} ${HOSTILE}`,
      body: `Body ${i}`,
      published_at: at(i),
    })),
  );
  await db()('listing_updates').insert({
    listing_id: makersId,
    site_id: await site('makers'),
    title: 'Makers news',
    body: 'Hi.',
    published_at: at(30),
  });

  const first = await page('/updates');
  t.is(first.status, 200);
  const titles = first
    .$('ol.feed h2')
    .map((_, h) => first.$(h).text())
    .get();
  t.is(titles.length, 20);
  t.is(titles[0], `Update 20 ${HOSTILE}`);
  t.false(first.text.includes('<script>alert'));
  t.false(titles.includes('Makers news'));
  t.is(first.$('a[rel=next]').attr('href'), '/updates?page=2');
  t.is(first.$('a[rel=prev]').length, 0);
  const second = await page('/updates?page=2');
  t.deepEqual(
    second
      .$('ol.feed h2')
      .map((_, h) => second.$(h).text())
      .get(),
    [`Update 0 ${HOSTILE}`],
  );
  t.is(second.$('a[rel=prev]').attr('href'), '/updates');
  const beyond = await page('/updates?page=9');
  t.is(beyond.status, 200);
  t.is(beyond.$('ol.feed').length, 0);
  t.is(beyond.$('a[rel=prev]').attr('href'), '/updates?page=2');

  const makers = await page('/updates', 'makers.localhost');
  t.deepEqual(
    makers
      .$('ol.feed h2')
      .map((_, h) => makers.$(h).text())
      .get(),
    ['Makers news'],
  );
  t.regex(makers.$('main > p').first().text(), /Makers Weekly/);

  for (const bad of ['0', 'abc', '-1', '1.5', '1000001', '1&page=2']) {
    const res = await page(`/updates?page=${bad}`);
    t.is(res.status, 400, bad);
    t.regex(res.type!, /^text\/html/);
  }
});

test('a listing page: live only, escaped, only http(s) links, milestones and story where paid', async (t) => {
  const { owner, listing } = await publishedStory();
  await db()('listings')
    .where({ id: listing.id })
    .update({
      headline: `Rockets ${HOSTILE}`,
      summary: 'First line\nsecond line\n\nSecond paragraph',
      socials: JSON.stringify({ github: 'https://github.com/rockets', linkedin: 'javascript:alert(1)' }),
      faqs: JSON.stringify([{ question: `Why ${HOSTILE}?`, answer: 'Because.' }]),
    });
  await api(env, 'POST', `/me/listings/${listing.id}/milestones`, { key: owner.key, body: { date: '2024-02-29', title: 'Leap launch' } });
  const fan = await env.user();
  await api(env, 'POST', `/listings/${listing.id}/follow`, { key: fan.key });

  let res = await web.get(`/listings/${listing.slug}`);
  t.is(res.status, 200);
  t.false(res.text.includes('<script>alert'));
  t.is(res.$('.lead').text(), `Rockets ${HOSTILE}`);
  t.is(res.$('[data-followers]').text(), '1');
  t.is(res.$('a[href="https://github.com/rockets"]').text(), 'GitHub');
  t.is(res.$('a[href^="javascript:"]').length, 0);
  t.true(res.$('li').text().includes('LinkedIn'));
  t.is(res.$('.faq h3').text(), `Why ${HOSTILE}?`);
  // A free listing without unlocked sections shows neither milestones nor the story link.
  t.is(res.$('ol.milestones').length, 0);
  t.is(res.$(`a[href="/stories/${listing.slug}"]`).length, 0);

  await db()('listings').where({ id: listing.id }).update({ plan: 'paid' });
  res = await web.get(`/listings/${listing.slug}`);
  t.is(res.$('ol.milestones time').attr('datetime'), '2024-02-29');
  t.is(res.$(`a[href="/stories/${listing.slug}"]`).text(), 'Our way');

  await db()('listings').where({ id: listing.id }).update({ status: 'draft' });
  t.is((await web.get(`/listings/${listing.slug}`)).status, 404);
  t.is((await web.get(`/listings/${'x'.repeat(300)}`)).status, 404);
});
