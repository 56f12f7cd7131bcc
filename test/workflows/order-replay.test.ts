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
  const activities = history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  t.is(activities[0], 'orderStatus');
  t.is(activities.filter((a) => a === 'applyPayment').length, 1, 'the same event five times is applied once');
  t.is(activities.filter((a) => a === 'fulfilLine').length, 5);
  t.is(activities.at(-1), 'orderStatus');
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'order'));
});

test('a history where fulfilment came before the payment fails the replay', async (t) => {
  const history = await recorded();
  const apply = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'applyPayment')!;
  apply.activityTaskScheduledEventAttributes!.activityType = { name: 'fulfilLine' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, 'tampered'));
});
