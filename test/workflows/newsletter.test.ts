import fs from 'node:fs/promises';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import test from 'ava';
import { createMailActivities } from '../../src/activities/mail.ts';
import { createNewsletterActivities } from '../../src/activities/newsletter.ts';
import { openIssue } from '../../src/domain/newsletter/sending.ts';
import type { Mailer } from '../../src/mail/smtp.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import { isoWeekLabel } from '../../src/workflows/contracts/weeks.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { closedWeek, confirmedSubscribers, siteNamed } from '../helpers/newsletter.ts';
import { startTimeSkipping, timeSkippingWorker, type TimeSkippingEnv } from '../helpers/time-skipping.ts';

// The newsletter workflow on Temporal's clock (time skipping): batches with the relay's pause
// between them, once per subscriber, and nothing again when the send runs a second time.

let env: TestEnv;
let testEnv: TimeSkippingEnv;
let worker: { stop(): Promise<void> };
const sent: string[] = [];
const mailer: Mailer = { send: async (m) => void sent.push(m.to), close() {} };

test.before(async () => {
  // No dispatcher: the tests start the workflow on the time-skipping server themselves.
  env = await startTestEnv(import.meta.url, {}, { dispatch: false });
  testEnv = await startTimeSkipping();
  worker = await timeSkippingWorker(testEnv, TASK_QUEUES.ranking, {
    ...createNewsletterActivities({ db: env.services.db, config: env.services.config }),
    ...createMailActivities({ db: env.services.db, mailer }),
  });
});
test.after.always(async () => {
  await worker?.stop();
  await testEnv?.teardown();
  await env?.close();
});

const db = () => env.services.db;

/** As recordHistory, from the time-skipping server (UPDATE_FIXTURES=1): the replay test's fixture. */
async function recordTimeSkippingHistory(workflowId: string, fixture: string): Promise<void> {
  if (process.env.UPDATE_FIXTURES !== '1') return;
  const history = await testEnv.client.workflow.getHandle(workflowId).fetchHistory();
  await fs.writeFile(path.resolve(import.meta.dirname, '../fixtures', fixture), historyToJSON(history));
}

test.serial(
  'every confirmed subscriber gets the issue once, batch by batch, a minute’s pause between batches on Temporal’s clock',
  async (t) => {
    const { monday } = await closedWeek(db(), 2, ['Timely Tapir', 'Timely Toucan']);
    const readers = await confirmedSubscribers(db(), 11);
    const left = await confirmedSubscribers(db(), 1);
    await db()('newsletter_subscribers').where({ id: left[0]!.id }).update({ unsubscribed_at: new Date() });
    const site = await siteNamed(db());
    t.true(await openIssue(db(), site, monday, { batchSize: 3, perMinute: 3 }));
    t.false(await openIssue(db(), site, monday, { batchSize: 3, perMinute: 3 }), 'once per site and week');
    const starts = await db()('workflow_starts').where({ kind: 'newsletter' });
    t.is(starts.length, 1);
    const week = isoWeekLabel(monday);
    t.is(starts[0]!.workflow_id, `newsletter:main:${week}`);
    t.deepEqual(starts[0]!.input, { siteKey: 'main', week, batchSize: 3, pauseMs: 60_000 });

    const startedAt = await testEnv.currentTimeMs();
    // Two batches per run: the cursor crosses continue-as-new.
    const result = await testEnv.client.workflow.execute('newsletterWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: 'newsletter-test-once',
      args: [{ ...starts[0]!.input, batchesPerRun: 2 }],
    });
    t.deepEqual(result, { sent: 11 });
    await recordTimeSkippingHistory('newsletter-test-once', 'newsletter-workflow.json');
    // Four batches (3+3+3+2), a minute's pause after each of the first three.
    t.true((await testEnv.currentTimeMs()) - startedAt >= 3 * 60_000, 'paced on Temporal’s clock');
    for (const r of readers) t.is(sent.filter((to) => to === r.email).length, 1, r.email);
    t.false(sent.includes(left[0]!.email), 'not to who left');
    const sends = await db()('newsletter_sends as s').join('newsletter_issues as i', 'i.id', 's.issue_id').where('i.week', monday);
    t.is(sends.length, 11);
    t.not((await db()('newsletter_issues').where({ week: monday }).first())!.finished_at, null);

    // The same send again (a repeat start after the first finished): nobody gets a second mail.
    const again = await testEnv.client.workflow.execute('newsletterWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: 'newsletter-test-again',
      args: [starts[0]!.input],
    });
    t.deepEqual(again, { sent: 0 });
    for (const r of readers) t.is(sent.filter((to) => to === r.email).length, 1, r.email);
  },
);
