import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../../src/temporal/worker.ts';

// An order of five lines paid by one event delivered five times, recorded from a real run
// (UPDATE_FIXTURES=1 npm test -- test/api/orders-payments.test.ts rewrites it). A change to
// orderWorkflow that would break orders already running fails here.
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/order-workflow-fulfilled.json');

const recorded = async () => historyFromJSON(JSON.parse(await fs.readFile(FIXTURE, 'utf8')));

test('orderWorkflow replays the recorded history', async (t) => {
  const history = await recorded();
  // The short database steps are local activities (markers); fulfilment and mail are activities.
  const activities = history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  t.deepEqual(activities, ['deliverMail', 'fulfilLine', 'fulfilLine', 'fulfilLine', 'fulfilLine', 'fulfilLine']);
  const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'paymentConfirmed');
  t.true(signals.length >= 1);
  t.true(history.events!.some((e) => e.markerRecordedEventAttributes));
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'order'));
});

test('a history where fulfilment came before the receipt fails the replay', async (t) => {
  const history = await recorded();
  const mail = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverMail')!;
  mail.activityTaskScheduledEventAttributes!.activityType = { name: 'fulfilLine' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'tampered'));
});
