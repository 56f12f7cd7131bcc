import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';
import { quietSdkLogs } from '../helpers/env.ts';

// Every workflow replays histories recorded from real runs (UPDATE_FIXTURES=1 npm test rewrites
// them, from the test named beside each): a change to a workflow that would break runs already
// going in production fails here. Tampered copies prove that the replay would notice.

// The tampered histories' expected nondeterminism warnings stay out of the test output.
test.before(() => quietSdkLogs());

const recorded = async (fixture: string) =>
  historyFromJSON(JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, '../fixtures', fixture), 'utf8')));
type History = Awaited<ReturnType<typeof recorded>>;

const activitiesOf = (history: History) => history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
const replay = async (history: History, id: string) => Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, id);

/** The history with its n-th scheduled activity renamed: a run the code would not make. */
function withScheduled(history: History, n: number, name: string): History {
  history.events!.filter((e) => e.activityTaskScheduledEventAttributes)[n]!.activityTaskScheduledEventAttributes!.activityType = { name };
  return history;
}

// draftWorkflow (test/api/drafts.test.ts). The -v1 histories are frozen runs from before the
// DraftStatus search attribute (kept behind patched()).
for (const fixture of [
  'draft-workflow-ready.json',
  'draft-workflow-failed.json',
  'draft-workflow-ready-v1.json',
  'draft-workflow-failed-v1.json',
]) {
  test(`draftWorkflow replays the recorded history ${fixture}`, async (t) => {
    const history = await recorded(fixture);
    t.true((history.events?.length ?? 0) > 5);
    await t.notThrowsAsync(replay(history, fixture));
  });
}

test('a draft history from a different workflow shape fails the replay', async (t) => {
  const history = withScheduled(await recorded('draft-workflow-ready.json'), 0, 'somethingElse');
  await t.throwsAsync(replay(history, 'tampered'));
});

// claimWorkflow: a dns claim (test/workflows/claim.test.ts): scheduled checks, a verifyNow Update
// in between, then expiry and its mail.
test('claimWorkflow replays the recorded history', async (t) => {
  const history = await recorded('claim-workflow.json');
  const events = history.events!;
  const activities = activitiesOf(history);
  t.is(activities.at(-2), 'expireClaim');
  t.is(activities.at(-1), 'deliverMail');
  t.true(activities.filter((a) => a === 'checkClaim').length >= 4);
  t.true(events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'verifyNow'));
  const started = events[0]!.workflowExecutionStartedEventAttributes!;
  t.is(started.taskQueue?.name, 'claims');
  t.deepEqual(Object.keys(started.searchAttributes?.indexedFields ?? {}).sort(), ['ClaimId', 'ListingId']);
  await t.notThrowsAsync(replay(history, 'claim'));
});

test('a history where the claim expired before its first check fails the replay', async (t) => {
  const history = withScheduled(await recorded('claim-workflow.json'), 0, 'expireClaim');
  await t.throwsAsync(replay(history, 'tampered'));
});

// listingImportWorkflow (`listings:import`, test/admin/claims.test.ts): an import that published
// its listing and one refused (already listed).
for (const fixture of ['listing-import-workflow-done.json', 'listing-import-workflow-refused.json']) {
  test(`listingImportWorkflow replays the recorded history ${fixture}`, async (t) => {
    const history = await recorded(fixture);
    t.deepEqual(activitiesOf(history), ['importCompanyListing']);
    await t.notThrowsAsync(replay(history, fixture));
  });
}

test('an import history from a different workflow shape fails the replay', async (t) => {
  const history = withScheduled(await recorded('listing-import-workflow-done.json'), 0, 'somethingElse');
  await t.throwsAsync(replay(history, 'tampered'));
});

// listingLaunchWorkflow: a whole free launch (test/workflows/listing-launch.test.ts): re-checks
// while waiting for the badge, the launch, the checks after it.
test('listingLaunchWorkflow replays the recorded history of a free launch', async (t) => {
  const history = await recorded('listing-launch-workflow.json');
  const names = activitiesOf(history);
  t.is(names[0], 'advanceLaunch');
  t.true(names.includes('recheckAndAdvance'));
  t.true(names.includes('launchWhenDue'));
  t.true(names.filter((n) => n === 'afterLaunchCheck').length >= 4);
  t.true(history.events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'recheck'));
  await t.notThrowsAsync(replay(history, 'listing-launch'));
});

test('a history where the launch came before any badge check fails the replay', async (t) => {
  const history = withScheduled(await recorded('listing-launch-workflow.json'), 0, 'launchWhenDue');
  await t.throwsAsync(replay(history, 'tampered'));
});

// listingUpdateWorkflow: a fan-out over three batches (test/workflows/listing-update.test.ts).
test('listingUpdateWorkflow replays the recorded history', async (t) => {
  const history = await recorded('listing-update-workflow.json');
  t.deepEqual(activitiesOf(history), ['tellFollowers', 'deliverMail', 'tellFollowers', 'deliverMail', 'tellFollowers', 'deliverMail']);
  await t.notThrowsAsync(replay(history, 'listing-update'));
});

test('a history where delivery came before telling fails the replay', async (t) => {
  const history = withScheduled(await recorded('listing-update-workflow.json'), 0, 'deliverMail');
  await t.throwsAsync(replay(history, 'tampered'));
});

// newsletterWorkflow: the last run (after continue-as-new) of a send in batches with pauses
// (test/workflows/newsletter.test.ts).
test('newsletterWorkflow replays: batches, their delivery and the pause between them', async (t) => {
  const history = await recorded('newsletter-workflow.json');
  t.deepEqual(activitiesOf(history), ['sendNewsletterBatch', 'deliverMail', 'sendNewsletterBatch', 'deliverMail']);
  t.true(
    history.events!.some((e) => e.timerStartedEventAttributes),
    'the pause is a timer',
  );
  await t.notThrowsAsync(replay(history, 'newsletter'));
});

test('a history that delivered before queueing fails the newsletter replay', async (t) => {
  const history = withScheduled(await recorded('newsletter-workflow.json'), 0, 'deliverMail');
  await t.throwsAsync(replay(history, 'tampered'));
});

// weeklyCloseWorkflow and siteWeeklyCloseWorkflow: a real close of two sites
// (test/workflows/weekly-close.test.ts).
test('weeklyCloseWorkflow replays: one child per site', async (t) => {
  const history = await recorded('weekly-close-workflow.json');
  const children = history.events!.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
  t.is(children.length, 2);
  t.true(children.every((id) => /^weekly-close:(main|makers):\d{4}-W\d{2}$/.test(id)));
  await t.notThrowsAsync(replay(history, 'weekly-close'));
});

test('siteWeeklyCloseWorkflow replays: freeze, tell, deliver', async (t) => {
  const history = await recorded('site-weekly-close-workflow.json');
  t.deepEqual(activitiesOf(history), ['freezeWeek', 'tellTopOwners', 'deliverMail']);
  await t.notThrowsAsync(replay(history, 'weekly-close:main'));
});

test('a history that told the owners before freezing fails the replay', async (t) => {
  const history = withScheduled(await recorded('site-weekly-close-workflow.json'), 0, 'tellTopOwners');
  await t.throwsAsync(replay(history, 'tampered'));
});

// orderWorkflow: an order of five lines paid by one event delivered five times
// (test/api/orders-payments.test.ts). The -v1 history is a frozen run from before local
// fulfilment (kept behind patched('order-local-fulfilment')); -line-refunded is an order whose
// launch line was undeliverable and refunded (behind patched('order-refund-undeliverable');
// test/api/orders-capacity.test.ts); -late-payment refunded a second payment
// (test/api/orders-payment-drain.test.ts, patched('order-payment-drain')).
type LongId = { toNumber(): number; subtract(n: number): LongId };
const isLongId = (v: unknown): v is LongId => typeof (v as LongId | null)?.toNumber === 'function';

/** Lowers every event id (its own and those it refers to, `…EventId`) after `afterId` by `by`. */
function shiftEventIds(node: unknown, afterId: number, by: number): void {
  if (!node || typeof node !== 'object' || ArrayBuffer.isView(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (/^eventId$|EventId$/.test(key) && isLongId(value)) {
      if (value.toNumber() > afterId) (node as Record<string, unknown>)[key] = value.subtract(by);
    } else shiftEventIds(value, afterId, by);
  }
}

/** The local activities of a history, in order (their markers carry the type in the first payload of `data`). */
const localActivitiesOf = (history: History) =>
  history.events!.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return e.markerRecordedEventAttributes?.markerName === 'core_local_activity' && data
      ? [JSON.parse(Buffer.from(data).toString()).activity_type as string]
      : [];
  });

test('orderWorkflow replays the recorded history', async (t) => {
  const history = await recorded('order-workflow-fulfilled.json');
  // Database steps and fulfilment are local activities (markers); only the receipt goes through the server.
  t.deepEqual(activitiesOf(history), ['deliverMail']);
  const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'paymentConfirmed');
  t.true(signals.length >= 1);
  t.true(history.events!.filter((e) => e.markerRecordedEventAttributes).length >= 5 + 4);
  await t.notThrowsAsync(replay(history, 'order'));
});

test('orderWorkflow replays a run from before local fulfilment (receipt first, lines as activities)', async (t) => {
  const history = await recorded('order-workflow-fulfilled-v1.json');
  t.deepEqual(activitiesOf(history), ['deliverMail', 'fulfilLine', 'fulfilLine', 'fulfilLine', 'fulfilLine', 'fulfilLine']);
  await t.notThrowsAsync(replay(history, 'order-v1'));
});

test('orderWorkflow replays a run that refunded an undeliverable line (patch order-refund-undeliverable) and fulfilled the rest', async (t) => {
  const history = await recorded('order-workflow-line-refunded.json');
  const markers = history.events!.flatMap((e) => e.markerRecordedEventAttributes ?? []);
  t.true(markers.some((m) => m.markerName === 'core_patch'));
  t.deepEqual(
    localActivitiesOf(history).filter((type) => ['fulfilLine', 'refundUndeliverable', 'markAttention', 'completeOrder'].includes(type)),
    ['fulfilLine', 'fulfilLine', 'refundUndeliverable', 'completeOrder'],
  );
  await t.notThrowsAsync(replay(history, 'order-line-refunded'));
});

test('without its patch marker, the refunded run fails the replay (the refund is behind patched())', async (t) => {
  const history = await recorded('order-workflow-line-refunded.json');
  // The second patch marker is the refund's: drop it and its search attribute upsert, and renumber what follows.
  const patches = history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
  const cut = history.events!.indexOf(patches.at(-1)!);
  const cutId = Number(history.events![cut]!.eventId);
  history.events!.splice(cut, 2);
  for (const event of history.events!) shiftEventIds(event, cutId, 2);
  // Unpatched, the code takes the old path: markAttention where the history refunded.
  await t.throwsAsync(replay(history, 'order-line-refunded-unpatched'), { message: /refundUndeliverable.*markAttention/ });
});

test('orderWorkflow replays a run that refunded a second payment arriving while its receipt went out', async (t) => {
  const history = await recorded('order-workflow-late-payment.json');
  const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'paymentConfirmed');
  t.is(signals.length, 2);
  t.deepEqual(activitiesOf(history), ['deliverMail']);
  t.deepEqual(localActivitiesOf(history).slice(-3), ['applyPayment', 'refundPayment', 'orderStatus']);
  await t.notThrowsAsync(replay(history, 'order-late-payment'));
});

test('a history where fulfilment came before the receipt fails the replay', async (t) => {
  const history = await recorded('order-workflow-fulfilled-v1.json');
  const mail = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverMail')!;
  mail.activityTaskScheduledEventAttributes!.activityType = { name: 'fulfilLine' };
  await t.throwsAsync(replay(history, 'tampered'));
});

test('a history that skipped the receipt fails the replay', async (t) => {
  const history = await recorded('order-workflow-fulfilled.json');
  const mail = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverMail')!;
  mail.activityTaskScheduledEventAttributes!.activityType = { name: 'somethingElse' };
  await t.throwsAsync(replay(history, 'tampered-v2'));
});
