import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { MAX_MILESTONES } from '../../src/domain/listings/milestones.ts';

let env: TestEnv;
let owner: { userId: number; key: string };
let other: { userId: number; key: string };

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  owner = await env.user();
  other = await env.user();
});
test.after.always(() => env?.close());

let n = 0;
const listing = (ownerId = owner.userId) => insertLiveListing(env.services.db, { name: `Milestone Co ${++n}`, ownerId });
const add = (listingId: number, body: unknown, key = owner.key, headers: Record<string, string> = {}) =>
  api(env, 'POST', `/me/listings/${listingId}/milestones`, { key, body, headers });
const del = (listingId: number, milestoneId: number, key = owner.key) =>
  api(env, 'DELETE', `/me/listings/${listingId}/milestones/${milestoneId}`, { key });
const stored = (listingId: number) => env.services.db('milestones').where({ listing_id: listingId }).orderBy('id');
const slugOf = async (id: number) => (await env.services.db('listings').where({ id }).first('slug'))!.slug;

test('add a milestone; the owner always sees it, newest date first', async (t) => {
  const id = await listing();
  const first = await add(id, {
    date: '2024-02-29',
    title: '  Public beta  ',
    description: 'Opened the doors.',
    url: 'https://acme.example/beta',
  });
  t.is(first.status, 201, JSON.stringify(first.body));
  t.deepEqual(first.body, {
    id: first.body.id,
    date: '2024-02-29',
    title: 'Public beta',
    description: 'Opened the doors.',
    url: 'https://acme.example/beta',
  });
  const second = await add(id, { date: '2025-06-01', title: 'Version 2' });
  t.is(second.status, 201);
  t.is(second.body.description, null);
  t.is(second.body.url, null);

  const mine = await api(env, 'GET', `/me/listings/${id}`, { key: owner.key });
  t.deepEqual(
    mine.body.milestones.map((m: { title: string }) => m.title),
    ['Version 2', 'Public beta'],
  );
});

test('milestones show publicly only on paid listings or when the section is unlocked', async (t) => {
  const id = await listing();
  await add(id, { date: '2025-01-15', title: 'Launch' });
  const slug = await slugOf(id);

  const free = await api(env, 'GET', `/listings/${slug}`);
  t.is(free.status, 200);
  t.false('milestones' in free.body);
  t.is(free.body.plan, undefined, 'the public view has no owner fields');

  await env.services
    .db('listings')
    .where({ id })
    .update({ plan: 'free', unlocked_sections: ['story'] });
  t.false('milestones' in (await api(env, 'GET', `/listings/${slug}`)).body);

  await env.services
    .db('listings')
    .where({ id })
    .update({ unlocked_sections: ['story', 'milestones'] });
  t.deepEqual(
    (await api(env, 'GET', `/listings/${slug}`)).body.milestones.map((m: { title: string }) => m.title),
    ['Launch'],
  );

  await env.services.db('listings').where({ id }).update({ plan: 'paid', unlocked_sections: [] });
  t.is((await api(env, 'GET', `/listings/${slug}`)).body.milestones.length, 1);
});

test('get_listing serves live listings only', async (t) => {
  const id = await listing();
  const slug = await slugOf(id);
  await env.services.db('listings').where({ id }).update({ status: 'scheduled' });
  const res = await api(env, 'GET', `/listings/${slug}`);
  t.is(res.status, 404);
  t.is(res.body.code, 'not_found');
  t.is((await api(env, 'GET', '/listings/no-such-listing')).status, 404);
  t.is((await api(env, 'GET', `/listings/${'x'.repeat(81)}`)).status, 400);
});

test('bad milestones are refused by field, and nothing is stored', async (t) => {
  const id = await listing();
  const cases: [unknown, string][] = [
    [{ date: '2026-02-30', title: 'No such day' }, 'date'],
    [{ date: '2023-02-29', title: 'Not a leap year' }, 'date'],
    [{ date: '2026-13-01', title: 'Month 13' }, 'date'],
    [{ date: '2026-1-5', title: 'Short' }, 'date'],
    [{ date: '05/01/2026', title: 'US style' }, 'date'],
    [{ date: '2026-01-05T10:00:00Z', title: 'With time' }, 'date'],
    [{ date: 20260105, title: 'Number' }, 'date'],
    [{ title: 'No date' }, 'date'],
    [{ date: '2026-01-05' }, 'title'],
    [{ date: '2026-01-05', title: '   ' }, 'title'],
    [{ date: '2026-01-05', title: 'x'.repeat(121) }, 'title'],
    [{ date: '2026-01-05', title: 'Long', description: 'x'.repeat(1001) }, 'description'],
    [{ date: '2026-01-05', title: 'Plain http', url: 'http://acme.example/' }, 'url'],
    [{ date: '2026-01-05', title: 'Script', url: 'javascript:alert(1)' }, 'url'],
    [{ date: '2026-01-05', title: 'Not a url', url: 'acme.example' }, 'url'],
    [{ date: '2026-01-05', title: 'Too long', url: `https://acme.example/${'a'.repeat(2048)}` }, 'url'],
    [{ date: '2026-01-05', title: 'Extra', tags: ['x'] }, 'tags'],
    [{ date: '2026-01-05', title: 'NUL', description: 'a\u0000b' }, 'description'],
  ];
  for (const [body, path] of cases) {
    const res = await add(id, body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(res.body.code, 'validation_failed');
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === path),
      `${JSON.stringify(body).slice(0, 60)}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  const feb30 = await add(id, { date: '2026-02-30', title: 'x' });
  t.regex(feb30.body.errors[0].message, /calendar date/);
  t.deepEqual(await stored(id), []);
});

test("another owner's listing or milestone is not found, and nothing changes", async (t) => {
  const mine = await listing();
  const theirs = await listing(other.userId);
  const theirMilestone = (await add(theirs, { date: '2025-01-01', title: 'Theirs' }, other.key)).body;

  t.is((await add(theirs, { date: '2025-01-01', title: 'Sneaky' })).status, 404);
  t.is((await del(theirs, theirMilestone.id)).status, 404);
  // Their milestone under my listing's path is still not found.
  t.is((await del(mine, theirMilestone.id)).status, 404);
  t.is((await add(2_000_000_000, { date: '2025-01-01', title: 'Nowhere' })).status, 404);
  t.deepEqual(
    (await stored(theirs)).map((m) => m.title),
    ['Theirs'],
  );
  t.deepEqual(await stored(mine), []);
  const readOnly = await env.user(['account:read']);
  t.is((await add(mine, { date: '2025-01-01', title: 'No scope' }, readOnly.key)).status, 403);
});

test('delete removes one milestone of that listing only; a second delete is not found', async (t) => {
  const a = await listing();
  const b = await listing();
  const keep = (await add(a, { date: '2025-01-01', title: 'Keep' })).body;
  const drop = (await add(a, { date: '2025-02-01', title: 'Drop' })).body;
  const onB = (await add(b, { date: '2025-03-01', title: 'On B' })).body;

  t.is((await del(b, keep.id)).status, 404, "a milestone of another of my listings is not this listing's");
  const res = await del(a, drop.id);
  t.is(res.status, 200);
  t.deepEqual(res.body, { id: drop.id, deleted: true });
  t.is((await del(a, drop.id)).status, 404);
  t.deepEqual(
    (await stored(a)).map((m) => m.id),
    [keep.id],
  );
  t.deepEqual(
    (await stored(b)).map((m) => m.id),
    [onB.id],
  );
});

test('adds and deletes are in the version history', async (t) => {
  const id = await listing();
  const m = (await add(id, { date: '2025-05-05', title: 'Seed round', url: 'https://acme.example/seed' })).body;
  await del(id, m.id);
  const res = await api(env, 'GET', `/me/listings/${id}/versions`, { key: owner.key });
  t.deepEqual(
    res.body.items.map((v: { operation: string; changes: unknown }) => [v.operation, v.changes]),
    [
      ['delete_milestone', { milestone: { before: m, after: null } }],
      ['add_milestone', { milestone: { before: null, after: m } }],
    ],
  );
});

test('an Idempotency-Key adds a milestone once', async (t) => {
  const id = await listing();
  const headers = { 'Idempotency-Key': 'milestone-1' };
  const body = { date: '2025-07-07', title: 'Once' };
  const first = await add(id, body, owner.key, headers);
  const replay = await add(id, body, owner.key, headers);
  t.is(first.status, 201);
  t.is(replay.status, 201);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, first.body);
  t.is((await stored(id)).length, 1);
});

test(`a listing holds at most ${MAX_MILESTONES} milestones`, async (t) => {
  const id = await listing();
  await env.services
    .db('milestones')
    .insert(Array.from({ length: MAX_MILESTONES }, (_, i) => ({ listing_id: id, date: '2025-01-01', title: `M${i}` })));
  const res = await add(id, { date: '2025-01-02', title: 'One too many' });
  t.is(res.status, 422);
  t.is(res.body.code, 'milestone_limit');
  t.is((await stored(id)).length, MAX_MILESTONES);
});
