import { randomBytes } from 'node:crypto';
import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { startTestDns, type TestDns } from '../helpers/dns-server.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { recordHistory, workflowResult } from '../helpers/workflows.ts';

// The claim workflow on its own: a short schedule (every 1 s for 3 s, then every 2 s) and a
// 7 s life instead of minutes and days; the checks, the expiry and its mail are real.

let env: TestEnv;
let dns: TestDns;
let smtp: TestSmtp;
let user: { userId: number; key: string; email: string };

test.before(async () => {
  dns = await startTestDns();
  smtp = await startTestSmtp();
  env = await startTestEnv(import.meta.url, {
    CLAIM_DNS_SERVERS: dns.server,
    CLAIM_CHECK_SCHEDULE: '1s/3s,2s/1h',
    CLAIM_LIFETIME: '7s',
    CLAIM_VERIFY_MIN_INTERVAL: '1s',
    SMTP_URL: smtp.url,
    MAIL_SWEEP_INTERVAL_MS: '60000',
  });
  await env.startWorkers();
  user = await env.user();
});
test.after.always(async () => {
  await env?.close();
  await dns?.close();
  await smtp?.close();
});

const db = () => env.services.db;

async function claimCompany(body: Record<string, string> = { method: 'dns' }) {
  const tag = `wf${randomBytes(4).toString('hex')}`;
  const id = await insertLiveListing(db(), { name: tag, url: `https://${tag}.com/` });
  const { slug } = await db()('listings').where({ id }).first('slug');
  const res = await api(env, 'POST', '/claims', {
    key: user.key,
    body: { slug, ...body, ...(body.email ? { email: `${body.email}@${tag}.com` } : {}) },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { claim: res.body, host: `${tag}.com`, listingId: id };
}

test('it checks on schedule until the claim expires; transient failures are errors; the claimant is mailed', async (t) => {
  const { claim, host } = await claimCompany();
  const name = `_listing-directory-challenge.${host}`;
  dns.zone.set(name, { rcode: 'SERVFAIL' });
  // The first scheduled check (after ~1 s) meets the SERVFAIL, the later ones a stale record.
  for (let waited = 0; !(await db()('claim_checks').where({ claim_id: claim.id }).first()); waited += 50) {
    if (waited > 6000) return t.fail('no scheduled check within 6 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  dns.zone.set(name, { txt: [['listing-directory-verification=ldv_stale']] });
  // verifyNow between scheduled checks (recorded in the history below).
  const now = await api(env, 'POST', `/claims/${claim.id}/verify`, { key: user.key });
  t.like(now.body, { status: 'pending', last_check: { result: 'not_found' } });

  t.is(await workflowResult(env, claim.workflow_id), 'expired');
  const row = await db()('claims').where({ id: claim.id }).first();
  t.is(row.status, 'expired');
  const checks = await db()('claim_checks').where({ claim_id: claim.id }).orderBy('id');
  const scheduled = checks.filter((c) => c.trigger === 'schedule');
  // At ~1, 2, 3 s, then every 2 s until 7 s: four or five (fewer on a loaded machine), never after the expiry.
  t.true(scheduled.length >= 2 && scheduled.length <= 6, `${scheduled.length} scheduled checks`);
  t.true(scheduled.some((c) => c.result === 'error' && c.detail.includes('ESERVFAIL')));
  t.true(scheduled.some((c) => c.result === 'not_found'));
  t.true(checks.every((c) => c.checked_at <= row.closed_at));
  t.deepEqual(
    checks.filter((c) => c.trigger === 'request').map((c) => c.result),
    ['not_found'],
  );
  // The expiry mail went out through the workflow (the sweeper waits a minute here).
  const expiryMails = smtp.received.filter((m) => m.to.includes(user.email) && m.raw.includes(`Your claim ${claim.id} of`));
  t.is(expiryMails.length, 1);
  await recordHistory(env, claim.workflow_id, 'claim-workflow.json');
});

test('a scheduled check that finds the record verifies the claim without verify_claim', async (t) => {
  const { claim, host, listingId } = await claimCompany();
  dns.zone.set(`_listing-directory-challenge.${host}`, { txt: [[claim.instructions.record.value]] });
  t.is(await workflowResult(env, claim.workflow_id), 'verified');
  const checks = await db()('claim_checks').where({ claim_id: claim.id });
  t.deepEqual(
    checks.map((c) => [c.trigger, c.result]),
    [['schedule', 'found']],
  );
  t.is((await db()('listings').where({ id: listingId }).first('owner_id')).owner_id, user.userId);
});

test('an email claim sends its link at once and expires unless the link is opened', async (t) => {
  const before = smtp.received.length;
  const { claim } = await claimCompany({ method: 'email', email: 'founder' });
  t.is(await workflowResult(env, claim.workflow_id), 'expired');
  const mails = smtp.received.slice(before).filter((m) => m.to.includes(claim.email));
  t.is(mails.length, 1);
  t.true(mails[0]!.raw.includes('/claims/email-link?token='));
  t.is(await db()('claim_checks').where({ claim_id: claim.id }).first(), undefined, 'nothing to check for an email claim');
});

test('a claim deleted with its listing ends its workflow as canceled', async (t) => {
  const { claim, listingId } = await claimCompany();
  await db()('listings').where({ id: listingId }).delete();
  t.is(await db()('claims').where({ id: claim.id }).first(), undefined);
  t.is(await workflowResult(env, claim.workflow_id), 'canceled');
});
