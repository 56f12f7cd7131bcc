import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../src/temporal/worker.ts';

// An order of five lines paid by one event delivered five times, recorded from a real run
// (UPDATE_FIXTURES=1 npm test -- test/api/orders-payments.test.ts rewrites it). A change to
// orderWorkflow that would break orders already running fails here. The -v1 history is a frozen
// run from before local fulfilment (kept behind patched('order-local-fulfilment')).
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');

const recorded = async (fixture: string) => historyFromJSON(JSON.parse(await fs.readFile(path.join(FIXTURES, fixture), 'utf8')));
type History = Awaited<ReturnType<typeof recorded>>;
const activitiesOf = (history: History) => history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
const replay = async (history: History, id: string) => Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, id);

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

/** The local activities of a history, in order (their markers carry the type). */
const localActivitiesOf = (history: History) =>
  history.events!.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return e.markerRecordedEventAttributes?.markerName === 'core_local_activity' && data
      ? [JSON.parse(Buffer.from(data).toString()).activity_type as string]
      : [];
  });

test('orderWorkflow replays a run that refunded a second payment arriving while its receipt went out', async (t) => {
  // Recorded by test/api/orders-payment-drain.test.ts (UPDATE_FIXTURES=1), with patched('order-payment-drain').
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
