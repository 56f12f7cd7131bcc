import { Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import test from 'ava';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { weekOfText } from '../../src/domain/time/week-words.ts';
import { castVote } from '../../src/domain/ranking/votes.ts';
import {
  ensureSchedule,
  MAINTENANCE_SCHEDULE_ID,
  VOTE_SCAN_SCHEDULE_ID,
  weeklyCloseSchedule,
  WEEKLY_CLOSE_SCHEDULE_ID,
} from '../../src/temporal/schedules.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import type { SiteCloseResult } from '../../src/workflows/weekly-close.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { shiftIntoPast, voters } from '../helpers/votes.ts';
import { mailsTo } from '../helpers/web.ts';
import { confirmedSubscribers } from '../helpers/newsletter.ts';
import { recordHistory, temporalClient, workflowResult } from '../helpers/workflows.ts';
import { eventually } from '../helpers/eventually.ts';

/** The weekly close against the Temporal dev server: the Schedule, the per-site workflows, idempotency, the owners told. */

let env: TestEnv;
let smtp: TestSmtp;
test.before(async () => {
  smtp = await startTestSmtp();
  env = await startTestEnv(import.meta.url, { SMTP_URL: smtp.url, MAIL_FROM: 'Listing Directory <ranking@example.com>' });
  await env.startWorkers(); // creates the Schedule
});
test.after.always(async () => {
  await env?.close();
  await smtp?.close();
});

const db = () => env.services.db;
const thisMonday = () => isoWeekStart(new Date());

/** A listing launched `weeksAgo` weeks ago on a site, owned by a confirmed account, with `votes` launch-week votes. */
async function pastLaunch(name: string, votes: number, weeksAgo: number, site = 'main') {
  const [owner] = await voters(db(), env.baseUrl, 1);
  const id = await insertLiveListing(db(), {
    name,
    site,
    ownerId: owner!.id,
    url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.com/`,
  });
  for (const v of await voters(db(), env.baseUrl, votes)) await castVote(db(), v.id, id, new Date());
  await shiftIntoPast(db(), id, weeksAgo);
  return { id, owner: owner! };
}

const results = (week: string) =>
  db()('weekly_results as r')
    .join('sites as s', 's.id', 'r.site_id')
    .where('r.week', week)
    .orderBy(['s.key', 'r.rank'])
    .select('s.key', 'r.*');

test.serial('creating the Schedule again (every worker start) succeeds and keeps one Monday 00:00 UTC schedule', async (t) => {
  const connection = await Connection.connect({ address: env.temporalAddress });
  try {
    t.is(await ensureSchedule(connection, env.namespace, weeklyCloseSchedule()), 'updated');
    t.is(await ensureSchedule(connection, env.namespace, weeklyCloseSchedule()), 'updated');
    const { client, close } = await temporalClient(env);
    try {
      const schedule = await client.schedule.getHandle(WEEKLY_CLOSE_SCHEDULE_ID).describe();
      t.is(schedule.policies.overlap, ScheduleOverlapPolicy.SKIP);
      t.is(schedule.policies.catchupWindow, 7 * 24 * 3600 * 1000);
      t.is(schedule.action.type, 'startWorkflow');
      t.is(schedule.action.type === 'startWorkflow' && schedule.action.workflowType, 'weeklyCloseWorkflow');
      t.is(schedule.action.type === 'startWorkflow' && schedule.action.taskQueue, TASK_QUEUES.ranking);
      // The next runs are Mondays at 00:00 UTC.
      const next = schedule.info.nextActionTimes.map((d) => d.toISOString());
      t.true(next.length > 0);
      for (const at of next) t.regex(at, /T00:00:00\.000Z$/);
      for (const at of next) t.is(new Date(at).getUTCDay(), 1);
      const listed = [];
      for await (const s of client.schedule.list()) listed.push(s.scheduleId);
      t.deepEqual(listed.sort(), [MAINTENANCE_SCHEDULE_ID, VOTE_SCAN_SCHEDULE_ID, WEEKLY_CLOSE_SCHEDULE_ID]);
    } finally {
      await close();
    }
  } finally {
    await connection.close();
  }
});

test.serial('closing a week twice gives the same results; only the top three owners are told, once', async (t) => {
  const monday = addWeeks(thisMonday(), -2);
  const week = isoWeekLabel(monday);
  const first = await pastLaunch('Gold Medal', 5, 2);
  const second = await pastLaunch('Silver Medal', 3, 2);
  const third = await pastLaunch('Bronze Medal', 2, 2);
  const fourth = await pastLaunch('Fourth Place', 1, 2);
  const makers = await pastLaunch('Makers Winner', 1, 2, 'makers');
  // Launched this week: not part of the closed week.
  await pastLaunch('Too Late', 9, 0);
  const [reader] = await confirmedSubscribers(db(), 1);

  const { client, close } = await temporalClient(env);
  try {
    const run = (id: string) =>
      client.workflow.execute('weeklyCloseWorkflow', { taskQueue: TASK_QUEUES.ranking, workflowId: id, args: [{ week }] }) as Promise<
        SiteCloseResult[]
      >;
    const once = await run('test-close-once');
    t.deepEqual(once, [
      { siteKey: 'main', week, results: 4, inserted: 4, told: 3 },
      { siteKey: 'makers', week, results: 1, inserted: 1, told: 1 },
    ]);
    const rowsOnce = await results(monday);
    t.deepEqual(
      rowsOnce.map((r) => [r.key, r.rank, r.listing_id, r.score, r.votes_removed]),
      [
        ['main', 1, first.id, 5, 0],
        ['main', 2, second.id, 3, 0],
        ['main', 3, third.id, 2, 0],
        ['main', 4, fourth.id, 1, 0],
        ['makers', 1, makers.id, 1, 0],
      ],
    );
    const twice = await run('test-close-twice');
    t.deepEqual(
      twice.map((r) => r.inserted),
      [0, 0],
    );
    t.deepEqual(await results(monday), rowsOnce);
    // Each close opened the site's newsletter once; its workflow sent the issue to the subscriber once.
    t.deepEqual(await workflowResult(env, `newsletter:main:${week}`), { sent: 1 });
    t.deepEqual(await workflowResult(env, `newsletter:makers:${week}`), { sent: 0 });
    t.is((await db()('newsletter_issues').where({ week: monday })).length, 2);
    await eventually('the issue delivered', () => smtp.countFor(reader!.email) === 1);

    // The per-site workflows carry their site as a search attribute.
    const child = await client.workflow.getHandle(`weekly-close:main:${week}`).describe();
    t.deepEqual(child.searchAttributes.SiteKey, ['main']);
    t.is(await child.staticSummary(), `Weekly close of main, ${week}`);
    t.is(child.taskQueue, TASK_QUEUES.ranking);
    await recordHistory(env, 'test-close-once', 'weekly-close-workflow.json');
    await recordHistory(env, `weekly-close:main:${week}`, 'site-weekly-close-workflow.json');
  } finally {
    await close();
  }

  const told = await db()('notifications').where({ kind: 'weekly_result' }).orderBy('id').select('user_id', 'listing_id', 'title');
  t.deepEqual(told.map((n) => n.user_id).sort(), [first.owner.id, second.owner.id, third.owner.id, makers.owner.id].sort());
  const words = `the ${weekOfText(monday)}`;
  t.true(told.some((n) => n.title === `Silver Medal finished #2 in ${words}`));
  for (const owner of [first.owner, second.owner, third.owner, makers.owner]) t.is(smtp.countFor(owner.email), 1, owner.email);
  t.is(smtp.countFor(fourth.owner.email), 0);
  const [mail] = await mailsTo(db(), first.owner.email);
  t.is(mail!.subject, `Gold Medal finished #1 in ${words}`);
  t.true(mail!.body_text.includes(`${env.baseUrl}/launches?week=${monday}`));
  // People read weeks by their dates: no ISO label in what the owner reads.
  t.notRegex(`${mail!.subject}\n${mail!.body_text}`, /\d{4}-W\d{2}/);

  // The owner sees it among their notifications.
  const ownerPage = await first.owner.client.get('/account/notifications');
  t.regex(ownerPage.$('ol.feed').text(), /Gold Medal finished #1/);
});

test.serial('a week that is not over is refused for good; the Schedule’s own run closes last week', async (t) => {
  const { client, close } = await temporalClient(env);
  try {
    const early = client.workflow.execute('weeklyCloseWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: 'test-close-early',
      args: [{ week: isoWeekLabel(thisMonday()) }],
    });
    await t.throwsAsync(early);
    t.is(
      await db()('weekly_results')
        .where({ week: thisMonday() })
        .count({ count: '*' })
        .then(([r]) => Number(r!.count)),
      0,
    );

    const last = await pastLaunch('Last Week Winner', 2, 1);
    await client.schedule.getHandle(WEEKLY_CLOSE_SCHEDULE_ID).trigger();
    const id = `weekly-close:main:${isoWeekLabel(addWeeks(thisMonday(), -1))}`;
    // The Schedule starts the run; then its result is the event that shows the week closed.
    await eventually(
      `${id} to start`,
      () =>
        client.workflow
          .getHandle(id)
          .describe()
          .then(
            () => true,
            () => false,
          ),
      { timeoutMs: 60_000 },
    );
    await client.workflow.getHandle(id).result();
    const frozen = await db()('weekly_results')
      .where({ week: addWeeks(thisMonday(), -1), listing_id: last.id })
      .first('rank', 'score');
    t.deepEqual(frozen, { rank: 1, score: 2 });
  } finally {
    await close();
  }
});
