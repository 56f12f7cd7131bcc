import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { completeProfile, imageBytes, ownedListing, PUBLISHABLE, words } from '../helpers/founders.ts';
import { publicStory } from '../../src/domain/founders/public-story.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const codes = (body: { missing: { code: string }[] }) => body.missing.map((m) => m.code);
const storyRow = (listingId: number) => env.services.db('founder_stories').where({ listing_id: listingId }).first();

test('the publish rules one by one until the story publishes', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  const put = (body: unknown) => api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body });
  const editor = `${env.baseUrl}/account/listings/${listing.id}/story`;
  const profilePage = `${env.baseUrl}/account/founder-profile`;

  // 1. No founder profile at all.
  let res = await put({ title: 'How we got here', how_started: words(50) });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.status, 'draft');
  t.is(res.body.published_at, null);
  t.is(res.body.url, editor);
  t.false(res.body.shown_on_listing);
  t.deepEqual(codes(res.body), ['founder_profile_missing', 'story_too_few_words', 'story_too_few_sections']);
  t.deepEqual(
    res.body.missing.map((m: { url: string }) => m.url),
    [profilePage, editor, editor],
  );
  t.is(res.body.missing[1].operation, 'set_founder_story');
  t.regex(res.body.missing[1].reason, /50 words.*300/);

  // 2. A profile without a photo and with a short bio.
  const profile = await api(env, 'PATCH', '/me/founder-profile', {
    key: owner.key,
    body: { display_name: 'Ada', bio: 'I build things.', links: ['https://ada.example.com/'] },
  });
  t.is(profile.status, 200);
  res = await put({});
  t.deepEqual(codes(res.body), ['photo_missing', 'bio_too_short', 'story_too_few_words', 'story_too_few_sections']);
  t.is(res.body.missing[0].operation, 'upload_founder_photo');
  t.is(res.body.missing[0].url, profilePage);

  // 3. The photo arrives: the short bio is next.
  const photo = await api(env, 'PUT', '/me/founder-profile/photo', {
    key: owner.key,
    body: { image_base64: (await imageBytes()).toString('base64') },
  });
  t.is(photo.status, 200);
  res = await put({});
  t.deepEqual(codes(res.body), ['bio_too_short', 'story_too_few_words', 'story_too_few_sections']);
  t.regex(res.body.missing[0].reason, /3 words.*20/);

  // 4. A 20-word bio: only the story itself is short.
  await api(env, 'PATCH', '/me/founder-profile', { key: owner.key, body: { bio: words(20, 'bio') } });
  res = await put({});
  t.deepEqual(codes(res.body), ['story_too_few_words', 'story_too_few_sections']);

  // 5. Enough words, but in two sections.
  res = await put({ how_started: words(200), problem: words(120) });
  t.deepEqual(codes(res.body), ['story_too_few_sections']);
  t.is(res.body.word_count, 320);
  t.is(res.body.section_count, 2);
  t.is(res.body.status, 'draft');

  // 6. A third section: published.
  res = await put({ hard_parts: 'Shipping on time.' });
  t.is(res.status, 200);
  t.is(res.body.status, 'published');
  t.deepEqual(res.body.missing, []);
  t.is(res.body.url, `${env.baseUrl}/stories/${listing.slug}`);
  t.truthy(Date.parse(res.body.published_at));
  t.false(res.body.shown_on_listing, 'a free listing without the story section does not show it');
  t.is(res.body.title, 'How we got here');

  const got = await api(env, 'GET', `/me/listings/${listing.id}/story`, { key: owner.key });
  t.is(got.status, 200);
  t.deepEqual(got.body, res.body);
});

test('get_founder_story says how to publish when rules pass without a story edit', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  const empty = await api(env, 'GET', `/me/listings/${listing.id}/story`, { key: owner.key });
  t.is(empty.status, 200);
  t.is(empty.body.title, null);
  t.deepEqual(Object.values(empty.body.sections), [null, null, null, null, null, null]);
  t.deepEqual(codes(empty.body), ['founder_profile_missing', 'story_too_few_words', 'story_too_few_sections']);

  const draft = await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body: PUBLISHABLE });
  t.deepEqual(codes(draft.body), ['founder_profile_missing']);
  await completeProfile(env, owner.key);
  const ready = await api(env, 'GET', `/me/listings/${listing.id}/story`, { key: owner.key });
  t.is(ready.body.status, 'draft');
  t.deepEqual(codes(ready.body), ['not_published']);
  t.is((await storyRow(listing.id))!.published_at, null, 'reading never publishes');
  const published = await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body: {} });
  t.is(published.body.status, 'published');
});

test('a published story stays published; an edit below the minimum is refused and changes nothing', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  await completeProfile(env, owner.key);
  const put = (body: unknown) => api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body });
  const first = await put(PUBLISHABLE);
  t.is(first.body.status, 'published');

  const retitled = await put({ title: 'A new title', whats_next: words(10) });
  t.is(retitled.status, 200);
  t.is(retitled.body.status, 'published');
  t.is(retitled.body.published_at, first.body.published_at);
  t.deepEqual(retitled.body.missing, []);

  const before = await storyRow(listing.id);
  const shrink = await put({ how_started: '', problem: '' });
  t.is(shrink.status, 422);
  t.is(shrink.body.code, 'story_below_minimum');
  t.regex(shrink.body.detail, /120 words in 2 sections/);
  t.deepEqual(await storyRow(listing.id), before);

  // The profile is its own resource: emptying it later leaves the story published.
  await api(env, 'PATCH', '/me/founder-profile', { key: owner.key, body: { bio: '' } });
  const after = await api(env, 'GET', `/me/listings/${listing.id}/story`, { key: owner.key });
  t.is(after.body.status, 'published');
  t.deepEqual(after.body.missing, []);
});

test('older section names map to the current ones; only sections sent change; empty clears', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  const put = (body: unknown) => api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body });
  const res = await put({
    story: 'It started in a garage.',
    why_started: 'Nobody could find a plumber.',
    journey: 'We built a map.',
    challenges: 'Money.',
    achievements: 'First customer in May.',
    lessons: 'Talk to users.',
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(res.body.sections, {
    how_started: 'It started in a garage.',
    problem: 'Nobody could find a plumber.',
    what_built: 'We built a map.',
    hard_parts: 'Money.',
    milestones: 'First customer in May.',
    whats_next: 'Talk to users.',
  });
  const one = await put({ problem: '  Plumbers were hard to find.\n\nAnd expensive.  ' });
  t.is(one.body.sections.problem, 'Plumbers were hard to find.\n\nAnd expensive.');
  t.is(one.body.sections.how_started, 'It started in a garage.');
  t.is(one.body.sections.whats_next, 'Talk to users.');
  const cleared = await put({ journey: '', lessons: '   ' });
  t.is(cleared.body.sections.what_built, null);
  t.is(cleared.body.sections.whats_next, null);
  t.is(cleared.body.sections.hard_parts, 'Money.');
  t.is(cleared.body.section_count, 4);
});

test('an older name with its current name in one call is a 400 naming both; nothing is saved', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  const put = (body: unknown) => api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body });
  await put({ how_started: 'Original.' });
  const res = await put({ story: 'A', how_started: 'B', lessons: 'C', whats_next: 'D', problem: 'fine' });
  t.is(res.status, 400);
  t.is(res.body.code, 'validation_failed');
  t.deepEqual(res.body.errors.map((e: { path: string }) => e.path).sort(), ['how_started', 'lessons', 'story', 'whats_next']);
  const row = await storyRow(listing.id);
  t.is(row!.how_started, 'Original.');
  t.is(row!.problem, null);
});

test('bad story input is a 400 naming the field, and nothing is saved', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  const path = `/me/listings/${listing.id}/story`;
  const cases: [unknown, string][] = [
    [{ title: 'x'.repeat(121) }, 'title'],
    [{ title: 'two\nlines' }, 'title'],
    [{ how_started: 'x'.repeat(10_001) }, 'how_started'],
    [{ journey: 'y'.repeat(10_001) }, 'journey'],
    [{ problem: 42 }, 'problem'],
    [{ problem: null }, 'problem'],
    [{ what_built: 'nul \u0000 byte' }, 'what_built'],
    [{ how_start: 'typo' }, 'how_start'],
    [{ sections: { how_started: 'nested' } }, 'sections'],
    [[1, 2], '(body)'],
  ];
  for (const [body, field] of cases) {
    const res = await api(env, 'PUT', path, { key: owner.key, body });
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(res.body.code, 'validation_failed');
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === field),
      `${field}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  const broken = await api(env, 'PUT', path, { key: owner.key, body: '{"title": ' });
  t.is(broken.status, 400);
  t.is(broken.body.code, 'invalid_json');
  for (const bad of ['abc', '0', '-1', '1.5', '99999999999']) {
    const res = await api(env, 'PUT', `/me/listings/${bad}/story`, { key: owner.key, body: { title: 'x' } });
    t.is(res.status, 400, bad);
    t.is(res.body.errors[0].path, 'listing_id');
  }
  t.is(await storyRow(listing.id), undefined);
});

test("another owner's listing is 404 and nothing changes; credentials and scopes are checked", async (t) => {
  const owner = await env.user();
  const other = await env.user();
  const listing = await ownedListing(env, owner.userId);
  await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body: { title: 'Mine' } });
  const before = await storyRow(listing.id);
  const put = await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: other.key, body: { title: 'Stolen' } });
  t.is(put.status, 404);
  t.is(put.body.code, 'not_found');
  const get = await api(env, 'GET', `/me/listings/${listing.id}/story`, { key: other.key });
  t.is(get.status, 404);
  const missing = await api(env, 'PUT', '/me/listings/2147483647/story', { key: owner.key, body: { title: 'x' } });
  t.is(missing.status, 404);
  t.deepEqual(await storyRow(listing.id), before);

  const anonymous = await api(env, 'PUT', `/me/listings/${listing.id}/story`, { body: { title: 'x' } });
  t.is(anonymous.status, 401);
  const readOnly = await env.user(['account:read']);
  const readOnlyListing = await ownedListing(env, readOnly.userId);
  const refused = await api(env, 'PUT', `/me/listings/${readOnlyListing.id}/story`, { key: readOnly.key, body: { title: 'x' } });
  t.is(refused.status, 403);
  t.is(refused.body.code, 'insufficient_scope');
  t.is((await api(env, 'GET', `/me/listings/${readOnlyListing.id}/story`, { key: readOnly.key })).status, 200);
  const writeOnly = await env.user(['listings:write']);
  const writeOnlyListing = await ownedListing(env, writeOnly.userId);
  t.is((await api(env, 'GET', `/me/listings/${writeOnlyListing.id}/story`, { key: writeOnly.key })).status, 403);
  t.deepEqual(await storyRow(listing.id), before);
});

test('shown_on_listing follows the paid plan or the unlocked story section', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  await completeProfile(env, owner.key);
  const get = () => api(env, 'GET', `/me/listings/${listing.id}/story`, { key: owner.key });
  const db = env.services.db;
  await db('listings')
    .where({ id: listing.id })
    .update({ unlocked_sections: ['story'] });
  t.false((await get()).body.shown_on_listing, 'not while the story is a draft');
  await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body: PUBLISHABLE });
  t.true((await get()).body.shown_on_listing);
  await db('listings')
    .where({ id: listing.id })
    .update({ unlocked_sections: ['milestones'], plan: 'free' });
  t.false((await get()).body.shown_on_listing);
  await db('listings').where({ id: listing.id }).update({ plan: 'paid' });
  t.true((await get()).body.shown_on_listing);
});

test('an Idempotency-Key replays the first response', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  const path = `/me/listings/${listing.id}/story`;
  const headers = { 'Idempotency-Key': 'story-1' };
  const first = await api(env, 'PUT', path, { key: owner.key, body: { title: 'One' }, headers });
  const again = await api(env, 'PUT', path, { key: owner.key, body: { title: 'One' }, headers });
  t.is(again.status, 200);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(again.body, first.body);
  const changed = await api(env, 'PUT', path, { key: owner.key, body: { title: 'Two' }, headers });
  t.is(changed.status, 422);
  t.is(changed.body.code, 'idempotency_conflict');
});

test('publicStory gives the published story in paragraphs, and nothing before or when unlisted', async (t) => {
  const owner = await env.user();
  const listing = await ownedListing(env, owner.userId);
  await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body: PUBLISHABLE });
  t.is(await publicStory(env.services.db, listing.slug), null, 'a draft is not public');
  await completeProfile(env, owner.key);
  const body = {
    title: '<script>alert(1)</script>',
    how_started: `${words(60)}\n\n${words(50, 'second')}\r\n\r\n\n  line one\nline two  `,
  };
  await api(env, 'PUT', `/me/listings/${listing.id}/story`, { key: owner.key, body });
  const story = await publicStory(env.services.db, listing.slug);
  t.truthy(story);
  t.is(story!.title, '<script>alert(1)</script>', 'plain data: escaping is the page’s job');
  t.deepEqual(
    story!.sections.map((s) => s.name),
    ['how_started', 'problem', 'what_built'],
  );
  t.deepEqual(story!.sections[0]!.paragraphs, [words(60), words(50, 'second'), 'line one\nline two']);
  t.is(story!.sections[1]!.heading, 'The problem');
  t.is(story!.listing.slug, listing.slug);
  t.is(story!.founder!.display_name, 'Ada Founder');
  t.regex(story!.founder!.photo_path!, new RegExp(`^/media/founders/${owner.userId}/photo\\.webp\\?v=[0-9a-f]{16}$`));
  t.is(story!.founder!.page_path, `/founders/${owner.userId}`);
  t.is(await publicStory(env.services.db, 'no-such-slug'), null);
  await env.services.db('listings').where({ id: listing.id }).update({ status: 'unlisted' });
  t.is(await publicStory(env.services.db, listing.slug), null);
});
