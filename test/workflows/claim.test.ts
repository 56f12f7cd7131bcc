import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createClaimActivities } from '../../src/activities/claims.ts';
import { systemClock } from '../../src/domain/time/clock.ts';
import { createMailActivities } from '../../src/activities/mail.ts';
import { createMailer } from '../../src/mail/smtp.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { startTestDns, type TestDns } from '../helpers/dns-server.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTimeSkipping, timeSkippingWorker, type TimeSkippingEnv } from '../helpers/time-skipping.ts';
import { recordHistory } from '../helpers/workflows.ts';

// The claim workflow on Temporal's clock (the Java test server, time skipping): a schedule of
// minutes (every minute for 3 minutes, then every 2 minutes) and a 7-minute life that take no
// wall time; the checks, the expiry and its mail are real. The app computes a claim's expiry on
// the wall clock and the workflow compares it with Temporal's, so every test gets a test server
// (and app) of its own whose clock starts at now; serial, as skipping time moves all workflows.

let env: TestEnv;
let testEnv: TimeSkippingEnv;
let worker: { stop(): Promise<void> };
let dns: TestDns;
let smtp: TestSmtp;
let user: { userId: number; key: string; email: string };

test.before(async () => {
  dns = await startTestDns();
  smtp = await startTestSmtp();
});
test.beforeEach(async () => {
  testEnv = await startTimeSkipping();
  env = await startTestEnv(
    import.meta.url,
    {
      CLAIM_DNS_SERVERS: dns.server,
      CLAIM_CHECK_SCHEDULE: '1m/3m,2m/1h',
      CLAIM_LIFETIME: '7m',
      CLAIM_VERIFY_MIN_INTERVAL: '1s',
      SMTP_URL: smtp.url,
      MAIL_SWEEP_INTERVAL_MS: '60000',
    },
    { temporalAddress: testEnv.address, namespace: testEnv.namespace ?? 'default' },
  );
  // The claims worker as startWorkers builds it (the test server has no schedules to register).
  const { config, db } = env.services;
  worker = await timeSkippingWorker(testEnv, TASK_QUEUES.claims, {
    ...createClaimActivities({ db, config, clock: systemClock }),
    ...createMailActivities({ db, mailer: createMailer(config) }),
  });
  user = await env.user();
});
test.afterEach.always(async () => {
  // Each test's own: a failed beforeEach must not tear down the previous test's twice.
  const [w, e, te] = [worker, env, testEnv];
  [worker, env, testEnv] = [undefined as never, undefined as never, undefined as never];
  await w?.stop();
  await e?.close();
  await te?.teardown();
});
test.after.always(async () => {
  await dns?.close();
  await smtp?.close();
});

/** Waits for a claim's workflow to end, skipping Temporal's clock meanwhile. */
const workflowResult = (workflowId: string) => testEnv.client.workflow.getHandle(workflowId).result();

const db = () => env.services.db;

async function claimCompany(body: Record<string, string> = { method: 'dns' }) {
  const tag = `wf${randomBytes(4).toString('hex')}`;
  const id = await insertLiveListing(db(), { name: tag, url: `https://${tag}.com/` });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  // A test server's JVM is cold at a test's first start, and the app gives a start 5 s before it
  // answers 503 (nothing is kept then): on a loaded machine, ask again as a client would.
  const res = await eventually('the claim to start', async () => {
    const answer = await api(env, 'POST', '/claims', {
      key: user.key,
      body: { slug, ...body, ...(body.email ? { email: `${body.email}@${tag}.com` } : {}) },
    });
    return answer.status !== 503 && answer;
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { claim: res.body, host: `${tag}.com`, listingId: id };
}

test.serial('it checks on schedule until the claim expires; transient failures are errors; the claimant is mailed', async (t) => {
  const { claim, host } = await claimCompany();
  const name = `_listing-directory-challenge.${host}`;
  dns.zone.set(name, { rcode: 'SERVFAIL' });
  // The first scheduled check (at 1 minute) meets the SERVFAIL, the later ones a stale record.
  await testEnv.sleep('90 seconds');
  await eventually('the first scheduled check', () => db()('claim_checks').where({ claim_id: claim.id }).first());
  dns.zone.set(name, { txt: [['listing-directory-verification=ldv_stale']] });
  // verifyNow between scheduled checks (recorded in the history below).
  const now = await api(env, 'POST', `/claims/${claim.id}/verify`, { key: user.key });
  t.like(now.body, { status: 'pending', last_check: { result: 'not_found' } });

  t.is(await workflowResult(claim.workflow_id), 'expired');
  const row = await db()('claims').where({ id: claim.id }).first();
  t.is(row!.status, 'expired');
  const checks = await db()('claim_checks').where({ claim_id: claim.id }).orderBy('id');
  const scheduled = checks.filter((c) => c.trigger === 'schedule');
  // At 1, 2 and 3 minutes, then every 2 minutes until the expiry at 7: at 5, none at 7.
  t.deepEqual(
    scheduled.map((c) => c.result),
    ['error', 'not_found', 'not_found', 'not_found'],
  );
  t.true(scheduled[0].detail.includes('ESERVFAIL'), scheduled[0].detail);
  t.true(checks.every((c) => c.checked_at <= row!.closed_at!));
  t.deepEqual(
    checks.filter((c) => c.trigger === 'request').map((c) => c.result),
    ['not_found'],
  );
  // The expiry mail went out through the workflow (the sweeper waits a minute here).
  const expiryMails = smtp.received.filter((m) => m.to.includes(user.email) && m.raw.includes(`Your claim ${claim.id} of`));
  t.is(expiryMails.length, 1);
  await recordHistory(env, claim.workflow_id, 'claim-workflow.json');
});

test.serial('a scheduled check that finds the record verifies the claim without verify_claim', async (t) => {
  const { claim, host, listingId } = await claimCompany();
  dns.zone.set(`_listing-directory-challenge.${host}`, { txt: [[claim.instructions.record.value]] });
  t.is(await workflowResult(claim.workflow_id), 'verified');
  const checks = await db()('claim_checks').where({ claim_id: claim.id });
  t.deepEqual(
    checks.map((c) => [c.trigger, c.result]),
    [['schedule', 'found']],
  );
  t.is((await db()('listings').where({ id: listingId }).first('owner_id'))!.owner_id, user.userId);
});

test.serial('an email claim sends its link at once and expires unless the link is opened', async (t) => {
  const before = smtp.received.length;
  const { claim } = await claimCompany({ method: 'email', email: 'founder' });
  t.is(await workflowResult(claim.workflow_id), 'expired');
  const mails = smtp.received.slice(before).filter((m) => m.to.includes(claim.email));
  t.is(mails.length, 1);
  t.true(mails[0]!.raw.includes('/claims/email-link?token='));
  t.is(await db()('claim_checks').where({ claim_id: claim.id }).first(), undefined, 'nothing to check for an email claim');
});

test.serial('a claim deleted with its listing ends its workflow as canceled', async (t) => {
  const { claim, listingId } = await claimCompany();
  await db()('listings').where({ id: listingId }).delete();
  t.is(await db()('claims').where({ id: claim.id }).first(), undefined);
  t.is(await workflowResult(claim.workflow_id), 'canceled');
});
