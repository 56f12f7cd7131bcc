import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';

// A dns claim recorded from a real run (test/workflows/claim.test.ts; UPDATE_FIXTURES=1 npm test
// rewrites it): scheduled checks, a verifyNow Update in between, then expiry and its mail.
// A change to claimWorkflow that would break claims already running fails here.
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/claim-workflow.json');

const recorded = async () => historyFromJSON(JSON.parse(await fs.readFile(FIXTURE, 'utf8')));

test('claimWorkflow replays the recorded history', async (t) => {
  const history = await recorded();
  const events = history.events!;
  const activities = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  t.is(activities.at(-2), 'expireClaim');
  t.is(activities.at(-1), 'deliverMail');
  t.true(activities.filter((a) => a === 'checkClaim').length >= 4);
  t.true(events.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'verifyNow'));
  const started = events[0]!.workflowExecutionStartedEventAttributes!;
  t.is(started.taskQueue?.name, 'claims');
  t.deepEqual(Object.keys(started.searchAttributes?.indexedFields ?? {}).sort(), ['ClaimId', 'ListingId']);
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'claim'));
});

test('a history where the claim expired before its first check fails the replay', async (t) => {
  const history = await recorded();
  const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
  scheduled[0]!.activityTaskScheduledEventAttributes!.activityType = { name: 'expireClaim' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'tampered'));
});
