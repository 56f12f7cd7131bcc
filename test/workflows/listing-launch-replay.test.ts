import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';

// A whole free launch recorded from a real run (UPDATE_FIXTURES=1 npm test -- test/workflows/listing-launch.test.ts
// rewrites it): re-checks while waiting for the badge, the launch, the checks after it.
// A change to listingLaunchWorkflow that would break launches already running fails here.
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/listing-launch-workflow.json');

const recorded = async () => historyFromJSON(JSON.parse(await fs.readFile(FIXTURE, 'utf8')));
const activities = (history: Awaited<ReturnType<typeof recorded>>) =>
  history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);

test('listingLaunchWorkflow replays the recorded history of a free launch', async (t) => {
  const history = await recorded();
  const names = activities(history);
  t.is(names[0], 'advanceLaunch');
  t.true(names.includes('recheckAndAdvance'));
  t.true(names.includes('launchWhenDue'));
  t.true(names.filter((n) => n === 'afterLaunchCheck').length >= 4);
  t.true(history.events!.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'recheck'));
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'listing-launch'));
});

test('a history where the launch came before any badge check fails the replay', async (t) => {
  const history = await recorded();
  const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
  scheduled[0]!.activityTaskScheduledEventAttributes!.activityType = { name: 'launchWhenDue' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'tampered'));
});
