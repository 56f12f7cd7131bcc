import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';

// Histories recorded from a real weekly close of two sites (UPDATE_FIXTURES=1 npm test rewrites
// them). A change to the close workflows that would break a close already running fails here.
const fixture = async (name: string) =>
  historyFromJSON(JSON.parse(await fs.readFile(path.resolve(import.meta.dirname, '../fixtures', name), 'utf8')));

test('weeklyCloseWorkflow replays: one child per site', async (t) => {
  const history = await fixture('weekly-close-workflow.json');
  const children = history.events!.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
  t.is(children.length, 2);
  t.true(children.every((id) => /^weekly-close:(main|makers):\d{4}-W\d{2}$/.test(id)));
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'weekly-close'));
});

test('siteWeeklyCloseWorkflow replays: freeze, tell, deliver', async (t) => {
  const history = await fixture('site-weekly-close-workflow.json');
  const activities = history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
  t.deepEqual(activities, ['freezeWeek', 'tellTopOwners', 'deliverMail']);
  await t.notThrowsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'weekly-close:main'));
});

test('a history that told the owners before freezing fails the replay', async (t) => {
  const history = await fixture('site-weekly-close-workflow.json');
  const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes);
  scheduled[0]!.activityTaskScheduledEventAttributes!.activityType = { name: 'tellTopOwners' };
  await t.throwsAsync(Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, 'tampered'));
});
