import test from 'ava';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { launchPaid } from '../../src/domain/launches/launch-paid.ts';
import { addWeeks, isoWeekStart, weekStartMs } from '../../src/workflows/contracts/weeks.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import type { LaunchTiming } from '../../src/workflows/listing-launch.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { badgeHtml, confirmEmail, draftListing, insertCompleteProfile, siteSettings } from '../helpers/launches.ts';
import { serve, type Handler, type TestSite } from '../helpers/site.ts';
import { recordHistory, temporalClient } from '../helpers/workflows.ts';
import { eventually } from '../helpers/eventually.ts';

// listing:{id} end to end on the real Temporal dev server with short durations: re-checks while
// waiting, the launch, badge checks after it with the grace period, the re-aim by a paid launch.
// Serial: the tests share the main site's settings and the owner site.

let env: TestEnv;
let site: TestSite;
const badges = new Set<string>();
const routes: Record<string, Handler> = {
  '/': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<html><body>${[...badges].map((slug) => badgeHtml(env.baseUrl, slug)).join('\n')}<p>Welcome</p></body></html>`);
  },
};

/** Seconds instead of days; the shape of the schedule stays (generous: this machine is shared and slow). */
const SHORT: LaunchTiming = {
  recheck: [
    { everyMs: 200, forMs: 3_000 },
    { everyMs: 500, forMs: 30_000 },
  ],
  afterLaunchEveryMs: 400,
  afterLaunchChecks: 4,
  graceMs: 700,
};

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
  site = await serve(routes);
});
test.after.always(async () => {
  await site?.close();
  await env?.close();
});

const db = () => env.services.db;

const statusOf = async (id: number) => (await db()('listings').where({ id }).first('status'))!.status as string;
const notices = async (id: number) =>
  (await db()('notifications').where({ listing_id: id, kind: 'launch' }).orderBy('id').pluck('dedupe_key')) as string[];

/** An owner ready for the free route (profile complete, email confirmed) and a listing on the owner site. */
async function freeListing() {
  const user = await env.user();
  await insertCompleteProfile(db(), user.userId);
  await confirmEmail(db(), user.userId);
  const listing = await draftListing(db(), user.userId, site.url);
  return { user, listing };
}

/** Starts listing:{id} with short durations, as an operator could; later signals reach this run. */
async function startShortFlow(listingId: number, timing: LaunchTiming = SHORT) {
  const { client, close } = await temporalClient(env);
  const handle = await client.workflow.start('listingLaunchWorkflow', {
    taskQueue: TASK_QUEUES.listings,
    workflowId: `listing:${listingId}`,
    args: [{ listingId, timing }],
  });
  return { handle, close };
}

test.serial('a whole free launch: waiting for the badge → scheduled → live → badge removed → grace', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 0, free_slots_per_week: 15, badge_after_grace: 'note' });
  const { user, listing } = await freeListing();
  await db()('listings').where({ id: listing.id }).update({ plan: 'free' });
  const { handle, close } = await startShortFlow(listing.id);
  t.teardown(close);
  const chosen = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key });
  t.like(chosen.body, { status: 'awaiting_badge' });

  // The flow keeps re-checking; the badge appears; the next scheduled check moves the listing on.
  await eventually(
    'scheduled re-checks',
    async () => (await db()('badge_checks').where({ listing_id: listing.id, trigger: 'schedule' })).length >= 2,
  );
  badges.add(listing.slug);
  await eventually('live', async () => (await statusOf(listing.id)) === 'live').catch(async (e) => {
    console.log(
      await db()('badge_checks').where({ listing_id: listing.id }).select('trigger', 'status', 'checked_at', 'detail'),
      await notices(listing.id),
      await db()('listings').where({ id: listing.id }).first('status', 'plan', 'launch_week'),
    );
    console.log(
      JSON.stringify(
        (await handle.fetchHistory()).events!.map((e) => [
          e.eventType,
          e.activityTaskScheduledEventAttributes?.activityType?.name,
          e.timerStartedEventAttributes?.startToFireTimeout?.seconds,
          e.timerStartedEventAttributes?.startToFireTimeout?.nanos,
        ]),
      ),
    );
    throw e;
  });
  const live = await db()('listings').where({ id: listing.id }).first();
  t.like(live, { plan: 'free', launch_week: isoWeekStart(new Date()) });
  t.truthy(live!.live_at);
  t.true((await db()('badge_checks').where({ listing_id: listing.id, trigger: 'launch', status: 'present' })).length === 1);

  // After launch the badge goes; the owner is told, then told again once the grace period is over.
  badges.delete(listing.slug);
  t.is(await handle.result(), 'live');
  const keys = await notices(listing.id);
  t.true(
    keys.some((k) => k.startsWith(`launch-scheduled:${listing.id}:`)),
    keys.join(),
  );
  t.true(
    keys.some((k) => k.startsWith(`badge-missing:${listing.id}:`)),
    keys.join(),
  );
  t.true(
    keys.some((k) => k.startsWith(`badge-grace:${listing.id}:`)),
    keys.join(),
  );
  t.is(await statusOf(listing.id), 'live'); // default after-grace action: a note only
  const mail = await db()('mail_outbox').where({ to_address: user.email }).orderBy('id').pluck('subject');
  t.true(
    mail.some((s: string) => /badge missing beyond the grace period/.test(s)),
    mail.join(' | '),
  );
  const view = await api(env, 'GET', `/me/listings/${listing.id}`, { key: user.key });
  t.like(view.body, { status: 'live', badge: { status: 'missing' } });
  t.regex(view.body.badge_note, /beyond the grace period/);
  const afterLaunch = await db()('badge_checks').where({ listing_id: listing.id, trigger: 'after_launch' });
  t.true(afterLaunch.length >= SHORT.afterLaunchChecks);
  await recordHistory(env, `listing:${listing.id}`, 'listing-launch-workflow.json');
});

test.serial('badge gone at launch time: back to awaiting_badge, slot released, owner told; back → live', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 0 });
  const { listing } = await freeListing();
  const week = isoWeekStart(new Date());
  await db()('launch_weeks').insert({ site_id: 1, week_start: week }).onConflict().ignore();
  await db()('launch_slots').insert({ listing_id: listing.id, site_id: 1, week_start: week, kind: 'free' });
  await db()('listings').where({ id: listing.id }).update({ plan: 'free', status: 'scheduled', launch_week: week });
  await db()('listing_badges').insert({ listing_id: listing.id, status: 'present', checked_at: db().fn.now() });
  const { handle, close } = await startShortFlow(listing.id, { ...SHORT, afterLaunchChecks: 0 });
  t.teardown(close);
  await eventually('awaiting_badge', async () => (await statusOf(listing.id)) === 'awaiting_badge');
  t.is(await db()('launch_slots').where({ listing_id: listing.id }).first(), undefined);
  t.like(await db()('listings').where({ id: listing.id }).first(), { launch_week: null });
  t.true((await notices(listing.id)).includes(`launch-missed:${listing.id}:${week}`));
  badges.add(listing.slug);
  t.is(await handle.result(), 'live');
});

test.serial('re-checks end after their schedule: the owner is told; "Check now" still moves it on', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 0 });
  const { user, listing } = await freeListing();
  await db()('listings').where({ id: listing.id }).update({ plan: 'free' });
  const { handle, close } = await startShortFlow(listing.id, { ...SHORT, recheck: [{ everyMs: 100, forMs: 300 }], afterLaunchChecks: 0 });
  t.teardown(close);
  await eventually('the schedule to end', async () => (await notices(listing.id)).some((k) => k.startsWith('rechecks-over:')));
  // No checks after the schedule: the flow now waits for a signal only (every timer it started
  // has fired, no activity is in flight, its last workflow task is done), so nothing can check.
  const checks = await eventually('the flow to wait for a signal only', async () => {
    const events = (await handle.fetchHistory()).events!;
    const count = (kind: string) => events.filter((e) => (e as Record<string, unknown>)[kind]).length;
    const idle =
      events.at(-1)?.workflowTaskCompletedEventAttributes &&
      count('timerStartedEventAttributes') === count('timerFiredEventAttributes') &&
      count('activityTaskScheduledEventAttributes') === count('activityTaskCompletedEventAttributes');
    return idle && (await db()('badge_checks').where({ listing_id: listing.id })).length;
  });
  t.true(checks > 0);
  t.is((await db()('badge_checks').where({ listing_id: listing.id })).length, checks, 'no checks after the schedule');
  t.is(await statusOf(listing.id), 'awaiting_badge');
  badges.add(listing.slug);
  const now = await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, { key: user.key });
  t.like(now.body, { status: 'present' });
  t.is(await handle.result(), 'live');
});

test.serial('an upgrade re-aims a flow that sleeps until its free week; operators find it by ListingId and SiteKey', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 3 });
  const { user, listing } = await freeListing();
  badges.add(listing.slug);
  const chosen = await api(env, 'POST', `/me/listings/${listing.id}/free`, { key: user.key });
  t.like(chosen.body, { status: 'scheduled', launch_week_start: addWeeks(isoWeekStart(new Date()), 3) });
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const handle = client.workflow.getHandle(`listing:${listing.id}`);
  await eventually('the timer to the launch week', async () => {
    const history = await handle.fetchHistory();
    return history.events!.some((e) => e.timerStartedEventAttributes);
  });
  // The durable timer runs exactly to Monday 00:00 UTC of the launch week (workflow time).
  const started = (await handle.fetchHistory()).events!.find((e) => e.timerStartedEventAttributes)!;
  const firesAfterMs = Number(started.timerStartedEventAttributes!.startToFireTimeout!.seconds) * 1000;
  const startedAtMs = Number(started.eventTime!.seconds) * 1000;
  t.true(Math.abs(startedAtMs + firesAfterMs - weekStartMs(chosen.body.launch_week_start)) < 2_000, `${startedAtMs} + ${firesAfterMs}`);
  const described = await handle.describe();
  t.is(described.typedSearchAttributes.get(defineSearchAttributeKey('ListingId', SearchAttributeType.INT)), listing.id);
  t.is(described.typedSearchAttributes.get(defineSearchAttributeKey('SiteKey', SearchAttributeType.KEYWORD)), 'main');
  await eventually('visibility', async () => {
    for await (const w of client.workflow.list({ query: `ListingId = ${listing.id} AND SiteKey = 'main'` }))
      if (w.workflowId === `listing:${listing.id}`) return true;
    return false;
  });

  t.deepEqual(await launchPaid({ db: db(), workflows: env.services.workflows }, listing.id, null, new Date()), {
    status: 'live',
    launch_week: isoWeekStart(new Date()),
  });
  t.is(await handle.result(), 'live');
  t.like(await db()('launch_slots').where({ listing_id: listing.id }).first(), { kind: 'paid' });
  const history = await handle.fetchHistory();
  const signals = history.events!.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
  t.true(signals.includes('paidLaunch'));
});

test.serial('a paid launch booked for a later week is re-aimed to now by a second booking', async (t) => {
  const user = await env.user();
  const listing = await draftListing(db(), user.userId, site.url);
  const deps = { db: db(), workflows: env.services.workflows };
  const later = addWeeks(isoWeekStart(new Date()), 2);
  t.deepEqual(await launchPaid(deps, listing.id, later, new Date()), { status: 'scheduled', launch_week: later });
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const handle = client.workflow.getHandle(`listing:${listing.id}`);
  await eventually('the timer', async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
  await launchPaid(deps, listing.id, null, new Date());
  t.is(await handle.result(), 'live');
  t.like(await db()('launch_slots').where({ listing_id: listing.id }).first(), { kind: 'paid', week_start: isoWeekStart(new Date()) });
});

test.serial('a flow that closed while its listing still waits is started again by "Check now"', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 0 });
  const { user, listing } = await freeListing();
  await db()('listings').where({ id: listing.id }).update({ plan: 'free' });
  const { handle, close } = await startShortFlow(listing.id);
  t.teardown(close);
  await eventually(
    'a scheduled re-check',
    async () => (await db()('badge_checks').where({ listing_id: listing.id, trigger: 'schedule' })).length >= 1,
  );
  await handle.terminate('an operator stopped it');
  const first = (await handle.describe()).runId;

  badges.add(listing.slug);
  t.like((await api(env, 'POST', `/me/listings/${listing.id}/badge-check`, { key: user.key })).body, { status: 'present' });
  await eventually('live', async () => (await statusOf(listing.id)) === 'live');
  const { client, close: closeClient } = await temporalClient(env);
  t.teardown(closeClient);
  const latest = client.workflow.getHandle(`listing:${listing.id}`);
  const described = await latest.describe();
  t.not(described.runId, first);
  t.is(described.status.name, 'RUNNING'); // watching the badge for the weeks after launch
  await latest.terminate('test done');
});
