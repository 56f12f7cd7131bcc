import test from 'ava';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertFollowers } from '../helpers/followers.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { recordHistory, temporalClient, workflowResult } from '../helpers/workflows.ts';
import { eventually } from '../helpers/eventually.ts';

// The fan-out end to end: REST post → Temporal workflow → notifications + outbox → real SMTP
// server on loopback. Serial: the tests share the SMTP server and its speed.
// Small batches: the shapes (three batches, a stop within the first of six) need no more mail than this.
const BATCH_SIZE = 20;

let env: TestEnv;
let smtp: TestSmtp;
let owner: { userId: number; key: string };

test.before(async () => {
  smtp = await startTestSmtp();
  env = await startTestEnv(import.meta.url, {
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Listing Directory <updates@example.com>',
    UPDATE_FANOUT_BATCH_SIZE: String(BATCH_SIZE),
    MAIL_SWEEP_INTERVAL_MS: '200',
  });
  owner = await env.user();
});
test.after.always(async () => {
  await env?.close();
  await smtp?.close();
});

const db = () => env.services.db;

async function postUpdate(listingId: number, title: string): Promise<{ id: number; workflow_id: string }> {
  const res = await api(env, 'POST', `/me/listings/${listingId}/updates`, { key: owner.key, body: { title, body: `About ${title}.` } });
  if (res.status !== 201) throw new Error(`post_listing_update: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Notifications per follower of one update: user id → count. */
async function notificationsPerUser(updateId: number): Promise<Map<number, number>> {
  const rows: { user_id: number; count: number }[] = await db()('notifications')
    .where({ listing_update_id: updateId })
    .groupBy('user_id')
    .select('user_id', db().raw('count(*)::int AS count'));
  return new Map(rows.map((r) => [r.user_id, r.count]));
}

/**
 * Waits until every mail of the update is sent. The workflow sends them, but the outbox sweep may
 * claim one first (both take due rows with SKIP LOCKED): the workflow then goes on without it and
 * can finish while the sweep's send is still under way.
 */
async function allMailSent(updateId: number): Promise<void> {
  const unsent = () => db()('mail_outbox').where('dedupe_key', 'like', `listing-update:${updateId}:%`).whereNull('sent_at');
  await eventually('every mail of the update sent', async () => (await unsent()).length === 0, { timeoutMs: 30_000 });
}

const siteOf = async (listingId: number): Promise<number> => (await db()('listings').where({ id: listingId }).first('site_id'))!.site_id;

test.serial('every follower gets one notification and one email, batch by batch', async (t) => {
  const workers = await env.startWorkers();
  t.teardown(() => workers.shutdown());
  const listingId = await insertLiveListing(db(), { name: 'Fanout Rockets', ownerId: owner.userId });
  const followers = await insertFollowers(db(), listingId, 2 * BATCH_SIZE + BATCH_SIZE / 2);
  const unverified = await env.user();
  t.is((await api(env, 'POST', `/listings/${listingId}/follow`, { key: unverified.key })).status, 200);

  const update = await postUpdate(listingId, 'Version 2 is out');
  t.deepEqual(await workflowResult(env, update.workflow_id), { told: followers.length + 1 });
  await recordHistory(env, update.workflow_id, 'listing-update-workflow.json');

  const perUser = await notificationsPerUser(update.id);
  t.is(perUser.size, followers.length + 1);
  t.true([...perUser.values()].every((n) => n === 1));
  await allMailSent(update.id);
  for (const f of followers) t.is(smtp.countFor(f.email), 1, f.email);
  t.is(smtp.countFor(unverified.email), 0);
  const mail = smtp.received.find((m) => m.to.includes(followers[0]!.email))!;
  t.is(mail.from, 'updates@example.com');
  t.regex(mail.raw, /Subject: Fanout Rockets: Version 2 is out/);
  t.regex(mail.raw, /About Version 2 is out\./);
  t.regex(mail.raw, /Message-ID: <outbox-\d+@127\.0\.0\.1>/i);

  // Starting the fan-out again (a retried start, after it finished) runs it again and tells nobody twice.
  await env.services.workflows.startListingUpdate(update.id, BATCH_SIZE, listingId);
  await workflowResult(env, update.workflow_id);
  for (const f of followers.slice(0, 5)) t.is(smtp.countFor(f.email), 1);
});

test.serial('a worker restart in the middle of a fan-out: nobody missed, nobody told twice', async (t) => {
  const listingId = await insertLiveListing(db(), { name: 'Restart Rockets', ownerId: owner.userId });
  const followers = await insertFollowers(db(), listingId, 5 * BATCH_SIZE + 10);
  smtp.delayMs = 30; // slow enough that the fan-out is still running when the worker stops
  t.teardown(() => (smtp.delayMs = 0));

  const first = await env.startWorkers();
  const update = await postUpdate(listingId, 'Restarted');
  const notified = async () => (await notificationsPerUser(update.id)).size;
  const mailed = () => followers.filter((f) => smtp.countFor(f.email) > 0).length;
  // Stop while the first batch's mails are going out: committed notifications, half-sent mail.
  await eventually('the first batch', async () => (await notified()) >= BATCH_SIZE && mailed() >= 10, { timeoutMs: 60_000 });
  const stopping = Date.now();
  await first.shutdown();
  t.log(`the first worker stopped in ${Date.now() - stopping} ms`);

  const midway = { notified: await notified(), mailed: mailed() };
  t.log(`stopped after ${midway.notified} notifications and ${midway.mailed} emails of ${followers.length}`);
  t.true(midway.notified >= BATCH_SIZE && midway.notified < followers.length, `notified ${midway.notified}`);
  t.true(midway.mailed < followers.length, `mailed ${midway.mailed}`);

  const restartedAt = Date.now();
  const second = await env.startWorkers();
  t.teardown(() => second.shutdown());
  t.deepEqual(await workflowResult(env, update.workflow_id), { told: followers.length });
  t.log(`the second worker finished the fan-out in ${Date.now() - restartedAt} ms`);

  const perUser = await notificationsPerUser(update.id);
  t.is(perUser.size, followers.length);
  t.deepEqual([...new Set(perUser.values())], [1]);
  const outboxRows = () => db()('mail_outbox').where('dedupe_key', 'like', `listing-update:${update.id}:%`);
  const outbox = await outboxRows();
  t.is(outbox.length, followers.length);
  // A row not sent yet either carries the error of a send the stopping worker cut off (retried
  // after a back-off, 30 s at first), or was never reached by it (due at once: the sweep takes it,
  // at whatever moment the machine lets it, so the test does not ask which of the two it is).
  const unsent = outbox.filter((row) => row.sent_at === null);
  t.log(`${unsent.length} mails were not sent yet when the fan-out ended`);
  // Bring the retries forward instead of waiting for the back-off; the sweep (every 200 ms here) sends them.
  await outboxRows().whereNull('sent_at').update({ next_attempt_at: db().fn.now() });
  await eventually('the retried sends', async () => (await outboxRows().whereNull('sent_at')).length === 0, { timeoutMs: 60_000 });
  // A cut-off send the server had already accepted is the one at-least-once window of SMTP (each
  // mail has a stable Message-ID for receivers to drop a copy); the test server counts a mail only
  // after its 30 ms delay, so here each follower has exactly one.
  const emails = followers.map((f) => smtp.countFor(f.email));
  t.deepEqual([...new Set(emails)], [1], 'each follower got exactly one email');
});

test.serial('a long fan-out continues as new and carries its cursor', async (t) => {
  const workers = await env.startWorkers();
  t.teardown(() => workers.shutdown());
  const listingId = await insertLiveListing(db(), { name: 'Long Rockets', ownerId: owner.userId });
  const followers = await insertFollowers(db(), listingId, 35);
  const [{ id: updateId }] = await db()('listing_updates')
    .insert({ listing_id: listingId, site_id: await siteOf(listingId), author_id: owner.userId, title: 'Long', body: 'A long fan-out' })
    .returning('id');
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const handle = await client.workflow.start('listingUpdateWorkflow', {
    taskQueue: TASK_QUEUES.listings,
    workflowId: `listing-update:${updateId}`,
    args: [{ updateId, batchSize: 10, batchesPerRun: 2 }],
  });
  t.deepEqual(await handle.result(), { told: 35 });
  const firstRun = await client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
  t.truthy(firstRun.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes, 'the first run continued as new');
  t.is((await notificationsPerUser(updateId)).size, 35);
  await allMailSent(updateId);
  for (const f of followers) t.is(smtp.countFor(f.email), 1);
});

test.serial('an update deleted before its fan-out ran tells nobody', async (t) => {
  const workers = await env.startWorkers();
  t.teardown(() => workers.shutdown());
  const listingId = await insertLiveListing(db(), { name: 'Gone Rockets', ownerId: owner.userId });
  const [follower] = await insertFollowers(db(), listingId, 1);
  const [{ id: updateId }] = await db()('listing_updates')
    .insert({ listing_id: listingId, site_id: await siteOf(listingId), author_id: owner.userId, title: 'Gone', body: 'Deleted' })
    .returning('id');
  await db()('listing_updates').where({ id: updateId }).delete();
  await env.services.workflows.startListingUpdate(updateId, BATCH_SIZE, listingId);
  t.deepEqual(await workflowResult(env, `listing-update:${updateId}`), { told: 0 });
  t.is(smtp.countFor(follower!.email), 0);
});
