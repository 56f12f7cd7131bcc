import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { verifyEmail } from '../helpers/followers.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { workflowResult } from '../helpers/workflows.ts';

type User = { userId: number; key: string; email: string };

let env: TestEnv;
let owner: User;
let other: User;
let fan: User; // verified address
let lurker: User; // unverified address
let reader: User; // account:read only
let writer: User; // listings:write only

const NEWS = { host: 'news.localhost' };

test.before(async () => {
  env = await startTestEnv(import.meta.url, { SEARCH_CACHE_TTL_MS: '0' });
  // A site of its own for the feed test (before any request: sites are cached per process).
  await env.services.db('sites').insert({
    key: 'news',
    name: 'News',
    host: NEWS.host,
    settings: JSON.stringify({ seller_country: 'IE', free_queue_weeks: 4, billboard_min_days: 7 }),
  });
  await env.startWorkers();
  [owner, other, fan, lurker] = await Promise.all([env.user(), env.user(), env.user(), env.user()]);
  reader = await env.user(['account:read']);
  writer = await env.user(['listings:write']);
  await verifyEmail(env.services.db, fan.userId);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const live = (name: string, ownerId = owner.userId, site = 'main') => insertLiveListing(db(), { name, ownerId, site });
const post = (key: string, listingId: number, body: unknown, headers: Record<string, string> = {}) =>
  api(env, 'POST', `/me/listings/${listingId}/updates`, { key, body, headers });
const follow = (key: string, listingId: number) => api(env, 'POST', `/listings/${listingId}/follow`, { key });
const unfollow = (key: string, listingId: number) => api(env, 'DELETE', `/listings/${listingId}/follow`, { key });
const notifications = (key: string, query = '') => api(env, 'GET', `/me/notifications${query}`, { key });
const updateCount = async (listingId: number) =>
  Number((await db()('listing_updates').where({ listing_id: listingId }).count({ count: '*' }))[0].count);

test('an update publishes at once and each follower is told once', async (t) => {
  const listingId = await live('Told Rockets');
  t.like((await follow(fan.key, listingId)).body, { listing_id: listingId, following: true, follower_count: 1 });
  t.like((await follow(lurker.key, listingId)).body, { following: true, follower_count: 2 });

  const res = await post(owner.key, listingId, { title: '  Launch day  ', body: 'We shipped.\n\nThanks to everyone.' });
  t.is(res.status, 201, JSON.stringify(res.body));
  t.like(res.body, { listing_id: listingId, title: 'Launch day', body: 'We shipped.\n\nThanks to everyone.' });
  t.is(res.body.workflow_id, `listing-update:${res.body.id}`);
  t.false(Number.isNaN(Date.parse(res.body.published_at)));
  t.deepEqual(await workflowResult(env, res.body.workflow_id), { told: 2 });

  for (const user of [fan, lurker]) {
    const mine = await notifications(user.key, '?per_page=100');
    t.is(mine.status, 200);
    // fan and lurker follow listings of other tests too (tests run concurrently).
    const here = mine.body.items.filter((n: { listing: { id: number } }) => n.listing.id === listingId);
    t.is(here.length, 1);
    t.like(here[0], {
      kind: 'listing_update',
      listing: { id: listingId, name: 'Told Rockets', site: 'main' },
      update: { id: res.body.id, title: 'Launch day', body: 'We shipped.\n\nThanks to everyone.' },
    });
  }
  t.is(await db()('notifications').where({ user_id: owner.userId }).first(), undefined);

  // Mail is queued for the verified address only; without SMTP_URL it stays in the outbox.
  const mail = await db()('mail_outbox').where('dedupe_key', 'like', `listing-update:${res.body.id}:%`);
  t.is(mail.length, 1);
  t.like(mail[0], { to_address: fan.email, dedupe_key: `listing-update:${res.body.id}:${fan.userId}`, sent_at: null });
  t.is(mail[0].subject, 'Told Rockets: Launch day');
  t.true(mail[0].body_text.includes('We shipped.\n\nThanks to everyone.'));
  // It says how to stop these mails in words and a one-click link, not as an API call.
  t.regex(mail[0].body_text, /Stop these mails: http:\/\/\S+\/unsubscribe\/\S+/);
  t.false(mail[0].body_text.includes('DELETE'));

  // The follower count shows on the owner's views and in public search.
  t.is((await api(env, 'GET', `/me/listings/${listingId}`, { key: owner.key })).body.follower_count, 2);
  const mine = await api(env, 'GET', '/me/listings?per_page=100', { key: owner.key });
  t.is(mine.body.items.find((l: { id: number }) => l.id === listingId).follower_count, 2);
  const found = await api(env, 'GET', '/listings?q=Told%20Rockets');
  t.is(found.body.items.find((l: { id: number }) => l.id === listingId).follower_count, 2);
});

test('bad update input is a 400 naming the field, and nothing is written', async (t) => {
  const listingId = await live('Strict Rockets');
  const good = { title: 'Fine', body: 'Fine body' };
  const cases: [unknown, string][] = [
    [{ ...good, title: '' }, 'title'],
    [{ ...good, title: '   ' }, 'title'],
    [{ ...good, title: 'x'.repeat(121) }, 'title'],
    [{ ...good, title: 'two\nlines' }, 'title'],
    [{ ...good, title: 'next\u0085line' }, 'title'],
    [{ ...good, body: 'escape \u001b[31m' }, 'body'],
    [{ ...good, title: 42 }, 'title'],
    [{ body: 'no title' }, 'title'],
    [{ ...good, body: '' }, 'body'],
    [{ ...good, body: ' \n ' }, 'body'],
    [{ ...good, body: 'x'.repeat(5001) }, 'body'],
    [{ ...good, body: 'nul \u0000 byte' }, 'body'],
    [{ title: 'no body' }, 'body'],
    [{ ...good, html: '<b>' }, 'html'],
  ];
  for (const [body, path] of cases) {
    const res = await post(owner.key, listingId, body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(res.body.code, 'validation_failed');
    t.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
      JSON.stringify(res.body.errors),
    );
  }
  t.is((await post(owner.key, listingId, '{"title": ')).body.code, 'invalid_json');
  t.is((await post(owner.key, listingId, ['a'])).status, 400);
  t.is((await api(env, 'POST', '/me/listings/abc/updates', { key: owner.key, body: good })).status, 400);
  t.is((await api(env, 'POST', '/me/listings/0/updates', { key: owner.key, body: good })).status, 400);
  // Exactly at the limits is fine.
  const edge = await post(owner.key, listingId, { title: 't'.repeat(120), body: 'b'.repeat(5000) });
  t.is(edge.status, 201);
  t.is(await updateCount(listingId), 1);
});

test("another owner's listing and an unknown listing are 404, and nothing is written", async (t) => {
  const theirs = await live('Their Rockets', other.userId);
  const res = await post(owner.key, theirs, { title: 'Hijack', body: 'Not mine' });
  t.is(res.status, 404);
  t.is(res.body.code, 'not_found');
  t.is((await post(owner.key, 2_000_000_000, { title: 'Nobody', body: 'Nothing' })).status, 404);
  t.is(await updateCount(theirs), 0);
});

test('scopes: no key is 401, a key without the scope is 403', async (t) => {
  const listingId = await live('Scoped Rockets');
  const anonymous = await api(env, 'POST', `/me/listings/${listingId}/updates`, { body: { title: 'a', body: 'b' } });
  t.is(anonymous.status, 401);
  t.truthy(anonymous.headers.get('www-authenticate'));
  t.is((await post(reader.key, listingId, { title: 'a', body: 'b' })).status, 403);
  t.is((await follow(reader.key, listingId)).status, 403);
  t.is((await unfollow(reader.key, listingId)).status, 403);
  t.is((await api(env, 'POST', `/listings/${listingId}/follow`)).status, 401);
  t.is((await notifications(writer.key)).status, 403);
  t.is((await api(env, 'GET', '/me/notifications')).status, 401);
  t.is((await follow(writer.key, listingId)).status, 200);
  t.is(await updateCount(listingId), 0);
});

test('an Idempotency-Key makes a retried post safe', async (t) => {
  const listingId = await live('Retried Rockets');
  const headers = { 'Idempotency-Key': 'post-once-1' };
  const first = await post(owner.key, listingId, { title: 'Once', body: 'Only once' }, headers);
  const again = await post(owner.key, listingId, { title: 'Once', body: 'Only once' }, headers);
  t.is(first.status, 201);
  t.is(again.status, 201);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.is(again.body.id, first.body.id);
  const changed = await post(owner.key, listingId, { title: 'Twice', body: 'Other body' }, headers);
  t.is(changed.status, 422);
  t.is(changed.body.code, 'idempotency_conflict');
  t.is(await updateCount(listingId), 1);
});

test('following twice is one follow; unfollowing when not following is fine', async (t) => {
  const listingId = await live('Followed Rockets');
  t.like((await follow(fan.key, listingId)).body, { following: true, follower_count: 1 });
  const twice = await follow(fan.key, listingId);
  t.is(twice.status, 200);
  t.like(twice.body, { following: true, follower_count: 1 });
  const rows = await db()('listing_followers').where({ listing_id: listingId });
  t.deepEqual(
    rows.map((r) => r.user_id),
    [fan.userId],
  );

  const never = await unfollow(lurker.key, listingId);
  t.is(never.status, 200);
  t.like(never.body, { listing_id: listingId, following: false, follower_count: 1 });
  t.like((await unfollow(fan.key, listingId)).body, { following: false, follower_count: 0 });
  t.like((await unfollow(fan.key, listingId)).body, { following: false, follower_count: 0 });
  t.is((await db()('listings').where({ id: listingId }).first('follower_count'))!.follower_count, 0);
});

test('only live listings can be followed; a follower can still leave a listing that went away', async (t) => {
  const draft = await live('Draft Rockets');
  await db()('listings').where({ id: draft }).update({ status: 'draft' });
  for (const res of [await follow(fan.key, draft), await follow(fan.key, 2_000_000_000), await unfollow(fan.key, draft)]) {
    t.is(res.status, 404);
    t.is(res.body.code, 'not_found');
  }
  t.is((await follow(fan.key, 0)).status, 400);
  t.is((await api(env, 'POST', `/listings/${draft}/follow`, { key: fan.key, body: { extra: true } })).status, 400);
  t.is(await db()('listing_followers').where({ listing_id: draft }).first(), undefined);

  const unlisted = await live('Unlisted Rockets');
  await follow(fan.key, unlisted);
  await db()('listings').where({ id: unlisted }).update({ status: 'unlisted' });
  t.like((await unfollow(fan.key, unlisted)).body, { following: false, follower_count: 0 });
  t.is((await follow(fan.key, unlisted)).status, 404);
});

test('followers who came after the update, and the author, are not told about it', async (t) => {
  const listingId = await live('Timely Rockets');
  await follow(owner.key, listingId);
  await follow(fan.key, listingId);
  const res = await post(owner.key, listingId, { title: 'Before you came', body: 'Old news' });
  t.deepEqual(await workflowResult(env, res.body.workflow_id), { told: 1 });
  const late = await env.user();
  await follow(late.key, listingId);
  const notified = await db()('notifications').where({ listing_update_id: res.body.id }).pluck('user_id');
  t.deepEqual(notified, [fan.userId]);
  t.is((await notifications(late.key)).body.total, 0);
});

test('notifications are paginated, newest first', async (t) => {
  const listingId = await live('Chatty Rockets');
  const follower = await env.user();
  await follow(follower.key, listingId);
  const ids: number[] = [];
  for (const n of [1, 2, 3]) {
    const res = await post(owner.key, listingId, { title: `Update ${n}`, body: `Body ${n}` });
    await workflowResult(env, res.body.workflow_id);
    ids.push(res.body.id);
  }
  const first = await notifications(follower.key, '?per_page=2');
  t.like(first.body, { page: 1, per_page: 2, total: 3 });
  t.deepEqual(
    first.body.items.map((n: { update: { id: number } }) => n.update.id),
    [ids[2], ids[1]],
  );
  const second = await notifications(follower.key, '?per_page=2&page=2');
  t.deepEqual(
    second.body.items.map((n: { update: { id: number } }) => n.update.id),
    [ids[0]],
  );
  t.is((await notifications(follower.key, '?per_page=101')).status, 400);
  t.is((await notifications(follower.key, '?page=0')).status, 400);
});

test('notifications are ordered by the time of the update, not by when they were delivered', async (t) => {
  const listingId = await live('Late Fan-out Rockets');
  const follower = await env.user();
  const { site_id } = (await db()('listings').where({ id: listingId }).first('site_id'))!;
  const at = (iso: string) => ({ listing_id: listingId, site_id, title: iso, body: 'x', published_at: iso });
  const [older, newer] = await db()('listing_updates')
    .insert([at('2026-01-01T10:00:00Z'), at('2026-01-02T10:00:00Z')])
    .returning('id');
  // The newer update's fan-out ran first; the older one's was retried and delivered later.
  for (const update of [newer, older])
    await db()('notifications').insert({ user_id: follower.userId, listing_update_id: update.id, kind: 'listing_update' });
  const res = await notifications(follower.key);
  t.deepEqual(
    res.body.items.map((n: { update: { id: number } }) => n.update.id),
    [newer.id, older.id],
  );
});

test("the latest-updates feed shows this site's live listings, newest first, paginated", async (t) => {
  const [first, second, hidden] = await Promise.all([
    live('Feed One', owner.userId, 'news'),
    live('Feed Two', owner.userId, 'news'),
    live('Feed Draft', owner.userId, 'news'),
  ]);
  await db()('listings').where({ id: hidden }).update({ status: 'draft' });
  const elsewhere = await live('Feed Elsewhere', owner.userId, 'makers');
  const posted: Record<string, number> = {};
  for (const [name, listingId] of [
    ['a', first],
    ['b', second],
    ['c', hidden],
    ['d', first],
    ['e', elsewhere],
  ] as const) {
    posted[name] = (await post(owner.key, listingId, { title: `Title ${name}`, body: `Body ${name}` })).body.id;
  }
  const feed = await api(env, 'GET', '/updates', { headers: NEWS });
  t.is(feed.status, 200);
  t.like(feed.body, { page: 1, per_page: 20, total: 3 });
  t.deepEqual(
    feed.body.items.map((u: { id: number }) => u.id),
    [posted.d, posted.b, posted.a],
  );
  const slug = (await db()('listings').where({ id: first }).first('slug'))!.slug;
  t.deepEqual(feed.body.items[0], {
    id: posted.d,
    listing: { id: first, name: 'Feed One', slug },
    title: 'Title d',
    body: 'Body d',
    published_at: feed.body.items[0].published_at,
  });
  const paged = await api(env, 'GET', '/updates?per_page=2&page=2', { headers: NEWS });
  t.like(paged.body, { page: 2, per_page: 2, total: 3 });
  t.deepEqual(
    paged.body.items.map((u: { id: number }) => u.id),
    [posted.a],
  );
  t.deepEqual((await api(env, 'GET', '/updates?page=9', { headers: NEWS })).body.items, []);

  const makers = await api(env, 'GET', '/updates', { headers: { host: 'makers.localhost' } });
  t.deepEqual(
    makers.body.items.map((u: { id: number }) => u.id),
    [posted.e],
  );

  for (const query of ['?per_page=0', '?per_page=101', '?page=abc', '?page=1&page=2']) {
    const bad = await api(env, 'GET', `/updates${query}`, { headers: NEWS });
    t.is(bad.status, 400, query);
  }
  // A listing that stops being live takes its updates out of the feed.
  await db()('listings').where({ id: first }).update({ status: 'unlisted' });
  const after = await api(env, 'GET', '/updates', { headers: NEWS });
  t.deepEqual(
    after.body.items.map((u: { id: number }) => u.id),
    [posted.b],
  );
});
