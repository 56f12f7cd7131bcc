import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';

// A fan-out over three batches recorded from a real run (UPDATE_FIXTURES=1 npm test rewrites it).
// A change to listingUpdateWorkflow that would break fan-outs already running fails here.
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/listing-update-workflow.json');

const recorded = async () => historyFromJSON(JSON.parse(await fs.readFile(FIXTURE, 'utf8')));

test('listingUpdateWorkflow replays the recorded history', async (t) => {
  const history = await recorded();
  const activities = history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  t.deepEqual(activities, ['tellFollowers', 'deliverMail', 'tellFollowers', 'deliverMail', 'tellFollowers', 'deliverMail']);
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'listing-update'));
});

test('a history where delivery came before telling fails the replay', async (t) => {
  const history = await recorded();
  const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
  scheduled[0]!.activityTaskScheduledEventAttributes!.activityType = { name: 'deliverMail' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'tampered'));
});
