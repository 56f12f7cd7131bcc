import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';

// Histories of `listings:import` recorded from real runs by test/admin/claims.test.ts
// (UPDATE_FIXTURES=1 npm test rewrites them): an import that published its listing and one refused
// (already listed). A change to listingImportWorkflow that would break running imports fails here.
const FIXTURES = ['listing-import-workflow-done.json', 'listing-import-workflow-refused.json'];

const recorded = async (fixture: string) =>
  historyFromJSON(JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, '../fixtures', fixture), 'utf8')));

for (const fixture of FIXTURES) {
  test(`listingImportWorkflow replays the recorded history ${fixture}`, async (t) => {
    const history = await recorded(fixture);
    const activities = history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    t.deepEqual(activities, ['importCompanyListing']);
    await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, fixture));
  });
}

test('a history from a different workflow shape fails the replay', async (t) => {
  const history = await recorded('listing-import-workflow-done.json');
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType = { name: 'somethingElse' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'tampered'));
});
