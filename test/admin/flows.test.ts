import type { ClaimStatus } from '../../src/domain/claims/claims.ts';
import type { DraftStatus } from '../../src/domain/fields.ts';
import type { OrderStatus } from '../../src/domain/orders/order-views.ts';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { temporalClient } from '../helpers/workflows.ts';

/** flows:stuck against seeded rows of every stuck kind and their healthy counterparts; Temporal says which claim flows are closed. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { TEMPORAL_UI_URL: 'https://temporal.example.com/' });
});
test.after.always(async () => {
  await env?.close();
});

const db = () => env.services.db;
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
const UI = () => `https://temporal.example.com/namespaces/${env.namespace}/workflows`;

async function seedDrafts(ownerId: number) {
  const site = await db()('sites').where({ key: 'main' }).first('id');
  const draft = async (status: DraftStatus, minutes: number) =>
    (
      await db()('drafts')
        .insert({ owner_id: ownerId, site_id: site!.id, url: `https://d${minutes}.example/`, status, updated_at: ago(minutes) })
        .returning('id')
    )[0].id;
  return { stuck: await draft('crawling', 11), fresh: await draft('crawling', 2), done: await draft('ready', 60) };
}

async function seedOrders(userId: number) {
  const site = await db()('sites').where({ key: 'main' }).first('id');
  const order = async (status: OrderStatus, paidMinutesAgo: number | null, attention?: string) => {
    const number = `LD-T-${randomBytes(3).toString('hex').toUpperCase()}`;
    await db()('orders').insert({
      site_id: site!.id,
      user_id: userId,
      number,
      checkout_token: randomBytes(8).toString('hex'),
      status,
      quote: '{}',
      billing: '{}',
      total_cents: 900,
      expires_at: ago(-60),
      paid_at: paidMinutesAgo === null ? null : ago(paidMinutesAgo),
      attention_reason: attention ?? null,
    });
    return number;
  };
  return {
    paidLong: await order('paid', 6),
    attention: await order('attention', 30, 'fulfilment failed 5 times'),
    paidJust: await order('paid', 1),
    fulfilled: await order('fulfilled', 60),
    pending: await order('pending', null),
  };
}

async function seedClaims(userId: number) {
  const claim = async (name: string, status: ClaimStatus = 'pending') => {
    const listingId = await insertLiveListing(db(), { name });
    const [{ id }] = await db()('claims')
      .insert({ listing_id: listingId, user_id: userId, method: 'dns', token: 't', status, expires_at: ago(-24 * 60) })
      .returning('id');
    return { id, listingId, slug: name.toLowerCase().replace(/\W+/g, '-') };
  };
  const missing = await claim('Missing Flow Co');
  const running = await claim('Running Flow Co');
  const closed = await claim('Closed Flow Co');
  const verified = await claim('Verified Co', 'verified');
  // No worker here: a started workflow stays running; a terminated one is closed.
  const start = (c: { id: number; listingId: number; slug: string }) =>
    env.services.workflows.startClaim({
      claimId: c.id,
      listingId: c.listingId,
      slug: c.slug,
      method: 'dns',
      startedAt: Date.now(),
      expiresAt: Date.now() + 86_400_000,
      schedule: [],
    });
  await start(running);
  await start(closed);
  const { client, close } = await temporalClient(env);
  await client.workflow.getHandle(`claim:${closed.id}`).terminate('test: a flow that ended too early');
  await close();
  return { missing: missing.id, running: running.id, closed: closed.id, verified: verified.id };
}

async function seedLaunches() {
  const scheduled = async (name: string, weekStart: string) => {
    const id = await insertLiveListing(db(), { name });
    await db()('listings').where({ id }).update({ status: 'scheduled', launch_week: weekStart });
    return id;
  };
  const thisMonday = isoWeekStart(new Date());
  return {
    started: await scheduled('Late Launch Co', addWeeks(thisMonday, -1)),
    upcoming: await scheduled('Upcoming Launch Co', addWeeks(thisMonday, 1)),
  };
}

async function seedMail() {
  const mail = async (to: string, minutes: number, extra: Record<string, unknown> = {}) =>
    (
      await db()('mail_outbox')
        .insert({ to_address: to, subject: 's', body_text: 'b', created_at: ago(minutes), ...extra })
        .returning('id')
    )[0].id;
  return {
    late: await mail('late@example.com', 61, { attempts: 3, last_error: 'connection refused' }),
    failed: await mail('bounced@example.com', 120, { attempts: 8, last_error: '550 no such user', failed_at: ago(30) }),
    recent: await mail('recent@example.com', 10),
    sent: await mail('sent@example.com', 120, { sent_at: ago(119) }),
  };
}

test.serial('flows:stuck lists each stuck flow once with its fix and UI link, and nothing healthy', async (t) => {
  const { userId } = await env.user();
  const drafts = await seedDrafts(userId);
  const orders = await seedOrders(userId);
  const claims = await seedClaims(userId);
  const launches = await seedLaunches();
  const mail = await seedMail();

  const out = await adminInProcess(env, 'flows:stuck');
  t.is(out.code, 0, out.stderr);
  const lines = out.stdout.split('\n');
  const byRef = new Map(lines.filter((l) => l.includes('\t')).map((l) => [l.split('\t')[0]!, l.split('\t')]));
  t.deepEqual(
    [...byRef.keys()].sort(),
    [
      `claim ${claims.closed}`,
      `claim ${claims.missing}`,
      `draft ${drafts.stuck}`,
      `launch ${launches.started}`,
      `mail ${mail.failed}`,
      `mail ${mail.late}`,
      `order ${orders.attention}`,
      `order ${orders.paidLong}`,
    ].sort(),
  );
  t.is(lines.at(-1), '8 stuck');

  const [, draftWhy, draftFix, draftLink] = byRef.get(`draft ${drafts.stuck}`)!;
  t.regex(draftWhy!, /^crawling https:\/\/d11\.example\/ since /);
  t.is(
    draftFix,
    `fix: after a code fix: temporal workflow reset --workflow-id draft:${drafts.stuck} --type LastWorkflowTask --reason "..."`,
  );
  t.is(draftLink, `${UI()}/draft%3A${drafts.stuck}`);

  t.deepEqual(byRef.get(`order ${orders.paidLong}`)!.slice(2), [
    `fix: npm run admin -- orders:retry --number ${orders.paidLong}`,
    `${UI()}/order%3A${orders.paidLong}`,
  ]);
  t.regex(byRef.get(`order ${orders.paidLong}`)![1]!, /^paid but not fulfilled since /);
  t.regex(byRef.get(`order ${orders.attention}`)![1]!, /^attention \(fulfilment failed 5 times\)/);

  t.regex(byRef.get(`claim ${claims.missing}`)![1]!, /but its workflow is missing$/);
  t.regex(byRef.get(`claim ${claims.closed}`)![1]!, /but its workflow is terminated$/);
  t.deepEqual(byRef.get(`claim ${claims.closed}`)!.slice(2), [
    `fix: npm run admin -- claims:recheck --id ${claims.closed}`,
    `${UI()}/claim%3A${claims.closed}`,
  ]);

  t.deepEqual(byRef.get(`launch ${launches.started}`)!.slice(2), [
    `fix: npm run admin -- launches:recheck --listing ${launches.started}`,
    `${UI()}/listing%3A${launches.started}`,
  ]);
  t.regex(byRef.get(`launch ${launches.started}`)![1]!, /^late-launch-co scheduled for the week of \d{4}-\d{2}-\d{2}, which has started$/);

  t.regex(byRef.get(`mail ${mail.late}`)![1]!, /^to late@example\.com undelivered since .*, 3 attempts: connection refused$/);
  t.is(byRef.get(`mail ${mail.late}`)![3], '-');
  t.regex(byRef.get(`mail ${mail.failed}`)![1]!, /given up: 550 no such user$/);
  t.regex(byRef.get(`mail ${mail.failed}`)![2]!, new RegExp(`WHERE id = ${mail.failed}`));

  // Fixed flows drop off the list.
  await db()('orders').whereIn('number', [orders.paidLong, orders.attention]).update({ status: 'fulfilled' });
  await db()('drafts').where({ id: drafts.stuck }).update({ status: 'ready' });
  await db()('claims').whereIn('id', [claims.missing, claims.closed]).update({ status: 'expired' });
  await db()('listings').where({ id: launches.started }).update({ status: 'live' });
  await db()('mail_outbox').whereIn('id', [mail.late, mail.failed]).update({ sent_at: db().fn.now() });
  const after = await adminInProcess(env, 'flows:stuck');
  t.is(after.stdout, 'nothing is stuck');

  const { client, close } = await temporalClient(env);
  await client.workflow.getHandle(`claim:${claims.running}`).terminate('test over');
  await close();
});
