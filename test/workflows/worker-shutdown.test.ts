import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertFollowers } from '../helpers/followers.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';

/**
 * A worker asked to stop lets its running activities finish within SHUTDOWN_GRACE_MS: a mail
 * batch being sent when shutdown starts is sent completely, none is cut off.
 */

const BATCH_SIZE = 30;

let env: TestEnv;
let smtp: TestSmtp;
test.before(async () => {
  smtp = await startTestSmtp();
  env = await startTestEnv(import.meta.url, {
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Listing Directory <updates@example.com>',
    UPDATE_FANOUT_BATCH_SIZE: String(BATCH_SIZE),
    SHUTDOWN_GRACE_MS: '20000',
    // The sweep must not finish the batch in the worker's place.
    MAIL_SWEEP_INTERVAL_MS: '600000',
  });
});
test.after.always(async () => {
  await env?.close();
  await smtp?.close();
});

const db = () => env.services.db;

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('shutdown waits for the running mail activity: the whole batch is sent, nothing is cut off', async (t) => {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Graceful Rockets', ownerId: owner.userId });
  const followers = await insertFollowers(db(), listingId, BATCH_SIZE);
  smtp.delayMs = 60; // ~2 s for the batch
  const workers = await env.startWorkers();
  const res = await api(env, 'POST', `/me/listings/${listingId}/updates`, {
    key: owner.key,
    body: { title: 'Graceful', body: 'About it.' },
  });
  t.is(res.status, 201);
  const mailed = () => followers.filter((f) => smtp.countFor(f.email) > 0).length;
  await waitFor('the first mails', () => mailed() >= 3);

  const atStart = mailed();
  const stopping = Date.now();
  await workers.shutdown();
  const took = Date.now() - stopping;
  t.log(`stopped in ${took} ms with ${atStart} of ${followers.length} mails out at the start`);

  t.is(mailed(), followers.length, 'the activity running at shutdown finished its batch');
  const rows = await db()('mail_outbox').where('dedupe_key', 'like', `listing-update:${res.body.id}:%`);
  t.is(rows.length, followers.length);
  t.deepEqual(
    rows.filter((r) => r.sent_at === null).map((r) => r.last_error),
    [],
  );
  t.true(took < 20_000);
});
