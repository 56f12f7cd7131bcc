import { ScheduleOverlapPolicy } from '@temporalio/client';
import test from 'ava';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { VOTE_SCAN_SCHEDULE_ID } from '../../src/temporal/schedules.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import type { SiteScanResult } from '../../src/workflows/vote-scan.ts';
import type { SiteCloseResult } from '../../src/workflows/weekly-close.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { buttonShownForVotes, ringVotes } from '../helpers/vote-rings.ts';
import { shiftIntoPast, voteCounts } from '../helpers/votes.ts';
import { temporalClient } from '../helpers/workflows.ts';

/**
 * The vote scan against the Temporal dev server: the hourly Schedule, one `vote-scan:{site}:{week}`
 * child per site with `SiteKey`, the week given as input, and the weekly close's final scan
 * before it freezes the results.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers(); // creates the Schedules
});
test.after.always(() => env?.close());

const db = () => env.services.db;

async function launch(name: string) {
  return insertLiveListing(db(), { name, url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.com/` });
}

test.serial('the Schedule scans every hour, at half past, one at a time', async (t) => {
  const { client, close } = await temporalClient(env);
  try {
    const schedule = await client.schedule.getHandle(VOTE_SCAN_SCHEDULE_ID).describe();
    t.is(schedule.policies.overlap, ScheduleOverlapPolicy.SKIP);
    t.is(schedule.action.type === 'startWorkflow' && schedule.action.workflowType, 'voteScanWorkflow');
    t.is(schedule.action.type === 'startWorkflow' && schedule.action.taskQueue, TASK_QUEUES.ranking);
    const next = schedule.info.nextActionTimes.map((d) => d.getTime());
    t.true(next.length > 1);
    for (const at of next) t.regex(new Date(at).toISOString(), /:30:00\.000Z$/);
    for (let i = 1; i < next.length; i++) t.is(next[i]! - next[i - 1]!, 3_600_000);
  } finally {
    await close();
  }
});

test.serial('a scan of the live week discounts the ring on each site; scanning again changes nothing', async (t) => {
  const week = isoWeekLabel(isoWeekStart(new Date()));
  const id = await launch('Scanned Live');
  await ringVotes(db(), [id], 3, { ageDays: 30, createdMinutesApart: 60 * 24 * 2 });
  await ringVotes(db(), [id], 10, { network: () => 'live-ring' });
  await buttonShownForVotes(db(), id);
  const { client, close } = await temporalClient(env);
  try {
    const run = (workflowId: string) =>
      client.workflow.execute('voteScanWorkflow', { taskQueue: TASK_QUEUES.ranking, workflowId, args: [{ week }] }) as Promise<
        SiteScanResult[]
      >;
    const once = await run('test-vote-scan-1');
    t.deepEqual(
      once.map((r) => r.siteKey),
      ['main', 'makers'],
    );
    t.like(once[0], { siteKey: 'main', week, detected: 10, raised: 10, cleared: 0, discounted: 10 });
    t.like(once[1], { siteKey: 'makers', week, votes: 0, detected: 0 });
    t.deepEqual(await voteCounts(db(), id), { votes: 3, week_votes: 3, rows: 13 });
    const twice = await run('test-vote-scan-2');
    t.like(twice[0], { detected: 10, raised: 0, discounted: 10 });
    t.deepEqual(await voteCounts(db(), id), { votes: 3, week_votes: 3, rows: 13 });

    const child = await client.workflow.getHandle(`vote-scan:main:${week}`).describe();
    t.deepEqual(child.searchAttributes.SiteKey, ['main']);
    t.is(await child.staticSummary(), `Vote scan of main, ${week}`);
    t.is(child.taskQueue, TASK_QUEUES.ranking);
  } finally {
    await close();
  }
});

test.serial('the weekly close scans once more before it freezes: a ring never scanned still counts 0', async (t) => {
  const monday = addWeeks(isoWeekStart(new Date()), -2);
  const week = isoWeekLabel(monday);
  const ringed = await launch('Late Ring');
  const honest = await launch('Honest Winner');
  await ringVotes(db(), [ringed], 25, { network: () => 'late-ring' });
  await ringVotes(db(), [honest], 4, { ageDays: 60, createdMinutesApart: 60 * 24 * 4 });
  for (const id of [ringed, honest]) {
    await shiftIntoPast(db(), id, 2);
    await buttonShownForVotes(db(), id);
  }
  // No hourly scan saw these votes: without the final scan the ring would win.
  t.is((await voteCounts(db(), ringed)).week_votes, 25);
  const { client, close } = await temporalClient(env);
  try {
    const closed = (await client.workflow.execute('weeklyCloseWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: 'test-close-after-scan',
      args: [{ week }],
    })) as SiteCloseResult[];
    t.like(closed[0], { siteKey: 'main', week, results: 2, inserted: 2 });
  } finally {
    await close();
  }
  const rows = await db()('weekly_results')
    .where({ week: monday })
    .orderBy('rank')
    .select('listing_id', 'rank', 'score', 'votes_discounted');
  t.deepEqual(rows, [
    { listing_id: honest, rank: 1, score: 4, votes_discounted: 0 },
    { listing_id: ringed, rank: 2, score: 0, votes_discounted: 25 },
  ]);
});
