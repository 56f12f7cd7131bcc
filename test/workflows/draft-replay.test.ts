import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';

// Histories recorded from real runs (UPDATE_FIXTURES=1 npm test rewrites them). A change to
// draftWorkflow that would break workflows already running in production fails here. The -v1
// histories are frozen runs from before the DraftStatus search attribute (kept behind patched()).
const FIXTURES = [
  'draft-workflow-ready.json',
  'draft-workflow-failed.json',
  'draft-workflow-ready-v1.json',
  'draft-workflow-failed-v1.json',
];
for (const fixture of FIXTURES) {
  test(`draftWorkflow replays the recorded history ${fixture}`, async (t) => {
    const json = JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, '../fixtures', fixture), 'utf8'));
    const history = historyFromJSON(json);
    t.true((history.events?.length ?? 0) > 5);
    await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, fixture));
  });
}

test('a history from a different workflow shape fails the replay', async (t) => {
  const json = JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, '../fixtures/draft-workflow-ready.json'), 'utf8'));
  const history = historyFromJSON(json);
  // Pretend the recorded run scheduled another activity first: replay must notice.
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!;
  scheduled.activityTaskScheduledEventAttributes!.activityType = { name: 'somethingElse' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'tampered'));
});
