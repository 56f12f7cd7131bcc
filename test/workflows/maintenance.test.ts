import type { ClaimStatus } from '../../src/domain/claims/claims.ts';
import { Connection } from '@temporalio/client';
import test from 'ava';
import { ensureSchedule, maintenanceSchedule, MAINTENANCE_SCHEDULE_ID } from '../../src/temporal/schedules.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import type { MaintenanceResult } from '../../src/workflows/maintenance.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { temporalClient } from '../helpers/workflows.ts';

/** The daily maintenance workflow against the Temporal dev server: only dead rows go, in batches, idempotently. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers(); // creates the Schedules
});
test.after.always(async () => {
  await env?.close();
});

const db = () => env.services.db;
const ago = (ms: number) => new Date(Date.now() - ms);
const later = (ms: number) => new Date(Date.now() + ms);
const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** Seeds `dead` rows that must go and `live` rows that must stay of every kind; returns the ids/keys of the live ones. */
async function seed(userId: number) {
  const idem = (key: string, expires: Date) => ({
    credential: `user:${userId}`,
    operation: 'create_draft',
    key,
    request_hash: 'h',
    expires_at: expires,
  });
  await db()('idempotency_keys').insert([
    idem('dead-1', ago(HOUR)),
    idem('dead-2', ago(DAY)),
    idem('dead-3', ago(1000)),
    idem('live-1', later(HOUR)),
  ]);

  const oauth = (id: string, expires: Date | null) => ({ model: 'Session', id, payload: {}, expires_at: expires });
  await db()('oauth_payloads').insert([
    oauth('dead-1', ago(HOUR)),
    oauth('dead-2', ago(1000)),
    oauth('live-1', later(HOUR)),
    oauth('live-2', null),
  ]);

  const session = (id: string, expires: Date, created = ago(HOUR)) => ({
    id_hash: id,
    user_id: userId,
    expires_at: expires,
    created_at: created,
  });
  await db()('web_sessions').insert([
    session('dead-idle', ago(1000)),
    session('dead-absolute', later(DAY), ago(91 * DAY)),
    session('live-1', later(DAY)),
  ]);

  const token = (hash: string, o: { expires: Date; created: Date; used?: Date }) => ({
    user_id: userId,
    purpose: 'reset_password' as const,
    token_hash: hash,
    expires_at: o.expires,
    created_at: o.created,
    used_at: o.used ?? null,
  });
  await db()('account_tokens').insert([
    token('dead-expired', { expires: ago(HOUR), created: ago(2 * HOUR) }),
    token('dead-used', { expires: later(HOUR), created: ago(HOUR), used: ago(HOUR) }),
    token('live-unused', { expires: later(HOUR), created: ago(HOUR) }),
    // Used but inside the 15-minute window: still counted by the per-window limit.
    token('live-recent', { expires: later(HOUR), created: ago(60_000), used: ago(30_000) }),
  ]);

  const listingId = await insertLiveListing(db(), { name: `Purge Co ${userId}`, ownerId: userId });
  const claim = async (status: ClaimStatus) =>
    (
      await db()('claims')
        .insert({
          listing_id: listingId,
          user_id: userId,
          method: 'email',
          email: 'a@purgeco.example',
          token: 't',
          status,
          expires_at: later(DAY),
        })
        .returning('id')
    )[0].id;
  const closed = await claim('expired');
  const pending = await claim('pending');
  const link = (hash: string, claimId: number, expires: Date, used?: Date) => ({
    claim_id: claimId,
    token_hash: hash,
    expires_at: expires,
    used_at: used ?? null,
  });
  await db()('claim_email_links').insert([
    link('dead-expired', closed, ago(HOUR)),
    link('dead-used', closed, later(DAY), ago(2 * DAY)),
    link('live-used-recently', closed, later(DAY), ago(HOUR)),
    // A pending claim's links count against its resend limit, expired or not.
    link('live-pending-expired', pending, ago(HOUR)),
  ]);
  // rate-limiter-flexible's rows: an expired window counts nothing; a running one still limits.
  await db()('rate_limits').insert([
    { key: 'promo-ip-day:dead-1', points: 3, expire: Date.now() - HOUR },
    { key: 'promo-ip-day:dead-2', points: 1, expire: Date.now() - 1000 },
    { key: 'promo-ip-day:live-1', points: 2, expire: Date.now() + HOUR },
  ]);
  // What counted a view once: hashes of hours that are over go, as do the day keys they were made with.
  await db()('page_count_seen').insert([
    { seen: Buffer.from('dead-seen-1'), hour: ago(3 * HOUR) },
    { seen: Buffer.from('dead-seen-2'), hour: ago(5 * HOUR) },
    { seen: Buffer.from('live-seen-1'), hour: ago(HOUR / 2) },
  ]);
  await db()('app_secrets').insert([
    { name: 'page-count:dead-day', value: Buffer.alloc(32), created_at: ago(3 * DAY) },
    { name: 'page-count:live-day', value: Buffer.alloc(32), created_at: ago(HOUR) },
  ]);
}

const keysOf = async (table: string, column: string) => (await db()(table).pluck(column)).sort();

test.serial('the workflow deletes exactly the dead rows, in batches, and a second run deletes nothing', async (t) => {
  const { userId } = await env.user();
  await seed(userId);
  const oauthBefore = await keysOf('oauth_payloads', 'id');
  const { client, close } = await temporalClient(env);
  try {
    const run = (id: string) =>
      client.workflow.execute('maintenanceWorkflow', {
        taskQueue: TASK_QUEUES.ranking,
        workflowId: id,
        args: [{ batchSize: 2 }],
      }) as Promise<MaintenanceResult>;
    t.deepEqual(await run('test-maintenance-1'), {
      idempotency_keys: 3,
      oauth_rows: 2,
      web_sessions: 2,
      account_tokens: 2,
      claim_email_links: 2,
      rate_limits: 2,
      vote_signals: 0,
      vote_network_keys: 0,
      page_count_seen: 2,
      page_count_keys: 1,
    });
    // Three expired keys with batches of two: two purge calls for that kind.
    const history = await client.workflow.getHandle('test-maintenance-1').fetchHistory();
    const scheduled = history.events!.filter((e) => e.activityTaskScheduledEventAttributes).length;
    t.is(scheduled, 2 + 2 + 2 + 2 + 2 + 2 + 1 + 1 + 2 + 1);
    t.deepEqual(await run('test-maintenance-2'), {
      idempotency_keys: 0,
      oauth_rows: 0,
      web_sessions: 0,
      account_tokens: 0,
      claim_email_links: 0,
      rate_limits: 0,
      vote_signals: 0,
      vote_network_keys: 0,
      page_count_seen: 0,
      page_count_keys: 0,
    });
  } finally {
    await close();
  }
  t.deepEqual(await keysOf('idempotency_keys', 'key'), ['live-1']);
  t.deepEqual(
    await keysOf('oauth_payloads', 'id'),
    oauthBefore.filter((id) => !id.startsWith('dead-')),
  );
  t.true((await keysOf('oauth_payloads', 'id')).includes('live-2'));
  t.deepEqual(await keysOf('web_sessions', 'id_hash'), ['live-1']);
  t.deepEqual(
    (await db()('page_count_seen').pluck('seen')).map((b: Buffer) => b.toString()),
    ['live-seen-1'],
  );
  t.deepEqual(await db()('app_secrets').where('name', 'like', 'page-count:%').pluck('name'), ['page-count:live-day']);
  t.deepEqual(await keysOf('account_tokens', 'token_hash'), ['live-recent', 'live-unused']);
  t.deepEqual(await keysOf('claim_email_links', 'token_hash'), ['live-pending-expired', 'live-used-recently']);
  t.deepEqual(await keysOf('rate_limits', 'key'), ['promo-ip-day:live-1']);
});

test.serial('the maintenance Schedule exists after worker start and creating it again succeeds', async (t) => {
  const connection = await Connection.connect({ address: env.temporalAddress });
  const { client, close } = await temporalClient(env);
  try {
    t.is(await ensureSchedule(connection, env.namespace, maintenanceSchedule()), 'updated');
    t.is(await ensureSchedule(connection, env.namespace, maintenanceSchedule()), 'updated');
    const schedule = await client.schedule.getHandle(MAINTENANCE_SCHEDULE_ID).describe();
    t.is(schedule.action.type === 'startWorkflow' && schedule.action.workflowType, 'maintenanceWorkflow');
    t.is(schedule.action.type === 'startWorkflow' && schedule.action.taskQueue, TASK_QUEUES.ranking);
    const next = schedule.info.nextActionTimes.map((d) => d.toISOString());
    t.true(next.length > 0);
    for (const at of next) t.regex(at, /T03:00:00\.000Z$/);
  } finally {
    await close();
    await connection.close();
  }
});
