import test from 'ava';
import { launchPaid } from '../../../src/domain/launches/launch-paid.ts';
import { addWeeks, isoWeekStart } from '../../../src/workflows/contracts/weeks.ts';
import { startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { draftListing, siteSettings } from '../../helpers/launches.ts';
import { temporalClient } from '../../helpers/workflows.ts';

// launchPaid as checkout fulfilment will call it: slots under the week lock, a free slot given
// back, idempotent retries, clear refusals. Serial: the tests change the main site's settings.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
});

const db = () => env.services.db;
const deps = () => ({ db: db(), workflows: env.services.workflows });
const thisWeek = () => isoWeekStart(new Date());
const slotOf = (listingId: number) => db()('launch_slots').where({ listing_id: listingId }).first('kind', 'week_start');

test.serial('null → live now in this week, with a paid slot; the workflow gets paidLaunch', async (t) => {
  const user = await env.user();
  const listing = await draftListing(db(), user.userId, 'https://paid.example/');
  t.deepEqual(await launchPaid(deps(), listing.id, null, new Date()), { status: 'live', launch_week: thisWeek() });
  const row = await db()('listings').where({ id: listing.id }).first();
  t.like(row, { plan: 'paid', status: 'live', launch_week: thisWeek() });
  t.truthy(row!.live_at);
  t.deepEqual(await slotOf(listing.id), { kind: 'paid', week_start: thisWeek() });
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const history = await client.workflow.getHandle(`listing:${listing.id}`).fetchHistory();
  const signals = history.events!.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
  t.deepEqual(signals, ['paidLaunch']);
});

test.serial('a later Monday → scheduled; a free listing gives its free slot back and keeps its content', async (t) => {
  const user = await env.user();
  const listing = await draftListing(db(), user.userId, 'https://upgrade.example/');
  const freeWeek = addWeeks(thisWeek(), 4);
  await db()('launch_weeks').insert({ site_id: 1, week_start: freeWeek }).onConflict().ignore();
  await db()('launch_slots').insert({ listing_id: listing.id, site_id: 1, week_start: freeWeek, kind: 'free' });
  await db()('listings').where({ id: listing.id }).update({ plan: 'free', status: 'scheduled', launch_week: freeWeek, headline: 'Kept' });
  const week = addWeeks(thisWeek(), 2);
  t.deepEqual(await launchPaid(deps(), listing.id, week, new Date()), { status: 'scheduled', launch_week: week });
  t.deepEqual(await slotOf(listing.id), { kind: 'paid', week_start: week });
  t.like(await db()('listings').where({ id: listing.id }).first(), {
    plan: 'paid',
    status: 'scheduled',
    launch_week: week,
    headline: 'Kept',
  });
  t.is(
    Number((await db()('launch_slots').where({ week_start: freeWeek, kind: 'free', listing_id: listing.id }).count({ n: '*' }))[0]!.n),
    0,
  );
});

test.serial('idempotent: the same listing and week twice changes nothing the second time', async (t) => {
  const user = await env.user();
  const listing = await draftListing(db(), user.userId, 'https://twice.example/');
  const week = addWeeks(thisWeek(), 3);
  const first = await launchPaid(deps(), listing.id, week, new Date());
  const slotBefore = await db()('launch_slots').where({ listing_id: listing.id }).first();
  const updatedBefore = (await db()('listings').where({ id: listing.id }).first('updated_at'))!.updated_at;
  const second = await launchPaid(deps(), listing.id, week, new Date());
  t.deepEqual(second, first);
  t.deepEqual(await db()('launch_slots').where({ listing_id: listing.id }).first(), slotBefore);
  t.deepEqual((await db()('listings').where({ id: listing.id }).first('updated_at'))!.updated_at, updatedBefore);
  // Live already: a retried "now" stays live in its week.
  const live = await draftListing(db(), user.userId, 'https://twice.example/b');
  const a = await launchPaid(deps(), live.id, null, new Date());
  t.deepEqual(await launchPaid(deps(), live.id, null, new Date()), a);
  t.deepEqual(await launchPaid(deps(), live.id, addWeeks(thisWeek(), 1), new Date()), a);
});

test.serial('paid slots per week are checked under the lock: concurrent bookings never overbook', async (t) => {
  await siteSettings(db(), 'main', { paid_slots_per_week: 3 });
  t.teardown(() => siteSettings(db(), 'main', { paid_slots_per_week: 10 }));
  const user = await env.user();
  const week = addWeeks(thisWeek(), 6);
  const listings = await Promise.all(Array.from({ length: 8 }, (_, i) => draftListing(db(), user.userId, `https://rush${i}.example/`)));
  const results = await Promise.allSettled(listings.map((l) => launchPaid(deps(), l.id, week, new Date())));
  t.is(results.filter((r) => r.status === 'fulfilled').length, 3);
  for (const r of results.filter((r) => r.status === 'rejected'))
    t.like((r as PromiseRejectedResult).reason, { status: 409, code: 'launch_week_full' });
  t.is(Number((await db()('launch_slots').where({ week_start: week, kind: 'paid' }).count({ n: '*' }))[0]!.n), 3);
  const refused = listings.filter((_, i) => results[i]!.status === 'rejected');
  for (const l of refused) t.like(await db()('listings').where({ id: l.id }).first(), { status: 'draft', plan: null });
});

test.serial('bad weeks are refused with a clear problem and nothing changes', async (t) => {
  const user = await env.user();
  const listing = await draftListing(db(), user.userId, 'https://bad.example/');
  for (const [week, status, code] of [
    ['2026-11-31', 400, 'validation_failed'],
    [new Date(Date.parse(addWeeks(thisWeek(), 1)) + 86_400_000).toISOString().slice(0, 10), 400, 'validation_failed'], // a Tuesday
    ['next monday', 400, 'validation_failed'],
    [addWeeks(thisWeek(), -1), 422, 'launch_week_past'],
    [addWeeks(thisWeek(), 60), 422, 'launch_week_too_far'],
  ] as const) {
    const err = await t.throwsAsync(launchPaid(deps(), listing.id, week, new Date()));
    t.like(err, { status, code }, week);
  }
  await t.throwsAsync(launchPaid(deps(), 2_000_000_000, null, new Date()), { message: /was not found/ });
  await db()('listings').where({ id: listing.id }).update({ status: 'unlisted' });
  t.like(await t.throwsAsync(launchPaid(deps(), listing.id, null, new Date())), { status: 409, code: 'listing_unlisted' });
  t.is(await slotOf(listing.id), undefined);
});
