import test from 'ava';
import { openIssue } from '../../src/domain/newsletter/sending.ts';
import { isoWeekLabel } from '../../src/workflows/contracts/weeks.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { closedWeek, confirmedSubscribers, siteNamed } from '../helpers/newsletter.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { workflowResult } from '../helpers/workflows.ts';
import { killWorker, workerProcesses } from '../helpers/worker-processes.ts';

/**
 * A worker process killed (SIGKILL) in the middle of a newsletter send: the next worker resumes
 * the workflow after the last finished batch, and every subscriber gets the issue exactly once.
 */

const BATCH = 5;
const SUBSCRIBERS = 23;

let env: TestEnv;
let smtp: TestSmtp;
let workers: Awaited<ReturnType<typeof workerProcesses>>;
test.before(async () => {
  smtp = await startTestSmtp();
  env = await startTestEnv(import.meta.url);
  workers = await workerProcesses(env, {
    SMTP_URL: smtp.url,
    // 5 a batch at 60 a minute: a 5 s pause after each batch, long enough to kill the worker mid-send.
    NEWSLETTER_BATCH_SIZE: String(BATCH),
    NEWSLETTER_PER_MINUTE: '60',
    WORKFLOW_START_SWEEP_MS: '100',
  });
});
test.after.always(async () => {
  await workers?.close();
  await env?.close();
  await smtp?.close();
});

test('a worker killed mid-send: the next one resumes, every subscriber gets exactly one mail', async (t) => {
  t.timeout(180_000);
  const db = env.services.db;
  const { monday } = await closedWeek(db, 2, ['Crash Cranes', 'Crash Crows']);
  const readers = await confirmedSubscribers(db, SUBSCRIBERS);
  const first = await workers.start();
  // As the weekly close does: the issue and its workflow's start in one transaction.
  t.true(await openIssue(db, await siteNamed(db), monday, { batchSize: BATCH, perMinute: 60 }));

  await eventually('the first batch delivered', () => smtp.received.length >= BATCH, { timeoutMs: 60_000 });
  await killWorker(first);
  const before = smtp.received.length;
  t.true(before < SUBSCRIBERS, `killed mid-send (${before} of ${SUBSCRIBERS} sent)`);
  await workers.start();

  const week = isoWeekLabel(monday);
  t.deepEqual(await workflowResult(env, `newsletter:main:${week}`), { sent: SUBSCRIBERS });
  await eventually('every mail delivered', () => smtp.received.length >= SUBSCRIBERS, { timeoutMs: 60_000 });
  for (const r of readers) t.is(smtp.countFor(r.email), 1, r.email);
  t.is(smtp.received.length, SUBSCRIBERS, 'no mail twice');
  const sends = await db('newsletter_sends as s').join('newsletter_issues as i', 'i.id', 's.issue_id').where('i.week', monday);
  t.is(sends.length, SUBSCRIBERS, 'one send recorded per subscriber');
  const unsent = await db('mail_outbox').whereNotNull('newsletter_subscriber_id').whereNull('sent_at');
  t.deepEqual(unsent, []);
});
