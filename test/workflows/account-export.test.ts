import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createAccountActivities } from '../../src/activities/accounts.ts';
import { createMailActivities } from '../../src/activities/mail.ts';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { Mailer } from '../../src/mail/smtp.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { temporalClient } from '../helpers/workflows.ts';
import { startTimeSkipping, timeSkippingWorker, type TimeSkippingEnv } from '../helpers/time-skipping.ts';
import { mailsTo, WebClient } from '../helpers/web.ts';

// The data export: asked for through the API, prepared by `account-export:{user}:{id}` on
// Temporal's test server with the real activities, mailed once, downloaded by its person only.

let env: TestEnv;
let testEnv: TimeSkippingEnv;
let worker: { stop(): Promise<void> };
const sent: string[] = [];
const mailer: Mailer = { send: async (m) => void sent.push(m.to), close() {} };
const PASSWORD = 'export person password';

test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { dispatch: false });
  testEnv = await startTimeSkipping();
  worker = await timeSkippingWorker(testEnv, TASK_QUEUES.accounts, {
    ...createAccountActivities({
      db: env.services.db,
      config: env.services.config,
      secrets: env.services.secrets,
      clock: env.services.clock,
    }),
    ...createMailActivities({ db: env.services.db, mailer }),
  });
});
test.after.always(async () => {
  await worker?.stop();
  await testEnv?.teardown();
  await env?.close();
});

const db = () => env.services.db;

async function person() {
  const email = `export-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const { key } = await createApiKey(db(), user.id, 'exporter key', ['account:read', 'account:write']);
  const web = new WebClient(env.baseUrl);
  await web.signIn(email, PASSWORD);
  return { userId: user.id, email, key, web };
}

test.serial('an export is prepared once by its workflow, mailed once, and downloads only for its person', async (t) => {
  const me = await person();
  const listingId = await insertLiveListing(db(), { name: `Exported ${randomBytes(3).toString('hex')}`, ownerId: me.userId });
  const site = (await db()('sites').where({ key: 'main' }).first('id'))!;
  const [order] = await db()('orders')
    .insert({
      site_id: site.id,
      user_id: me.userId,
      number: `LD-X-${randomBytes(3).toString('hex').toUpperCase()}`,
      checkout_token: randomBytes(8).toString('hex'),
      status: 'fulfilled',
      quote: '{}',
      billing: JSON.stringify({ name: 'Exporting Ltd', country: 'IE', vat_number: null }),
      total_cents: 1500,
      expires_at: new Date(),
      paid_at: new Date(),
    })
    .returning('id');
  await db()('order_lines').insert({
    order_id: order!.id,
    position: 1,
    product: 'launch',
    listing_id: listingId,
    amount_cents: 1500,
    unit_price_cents: 1500,
    discount_cents: 0,
    net_cents: 1500,
    vat_cents: 0,
  } as never);
  const asked = await api(env, 'POST', '/me/exports', { key: me.key });
  t.is(asked.status, 202);
  t.is(asked.body.status, 'preparing');
  const again = await api(env, 'POST', '/me/exports', { key: me.key });
  t.is(again.body.id, asked.body.id, 'one export in preparation at a time');
  // Recorded in the outbox with the request, then made right after its commit on the service's Temporal.
  const workflowId = `account-export:${me.userId}:${asked.body.id}`;
  t.is((await db()('workflow_starts').where({ workflow_id: workflowId })).length, 0, 'made, so no longer waiting');
  const temporal = await temporalClient(env);
  const started = await temporal.client.workflow
    .getHandle(workflowId)
    .describe()
    .finally(() => temporal.close());
  t.is(started.type, 'accountExportWorkflow');
  t.is(started.taskQueue, TASK_QUEUES.accounts);
  const start = { input: { userId: me.userId, exportId: asked.body.id as number } };

  for (const run of ['first', 'second']) {
    const result = await testEnv.client.workflow.execute('accountExportWorkflow', {
      taskQueue: TASK_QUEUES.accounts,
      workflowId: `account-export-test-${run}-${asked.body.id}`,
      args: [start!.input],
    });
    t.deepEqual(result, { mailed: true });
  }
  const mails = await mailsTo(db(), me.email);
  t.is(mails.length, 1, 'a second run sends no second mail');
  t.is(sent.filter((to) => to === me.email).length, 1);
  const status = await api(env, 'GET', `/me/exports/${asked.body.id}`, { key: me.key });
  t.is(status.body.status, 'ready');

  const link = /https?:\/\/\S+\/account\/exports\/\d+\/download\?expires=\d+&signature=[A-Za-z0-9_-]+/.exec(mails[0]!.body_text)![0];
  const path = link.slice(env.baseUrl.length);
  const download = await me.web.get(path);
  t.is(download.status, 200);
  t.regex(download.headers.get('content-disposition') ?? '', /attachment/);
  t.is(download.headers.get('cache-control'), 'no-store');
  const archive = JSON.parse(download.text);
  t.is(archive.account.email, me.email);
  t.deepEqual(
    archive.listings.map((l: { id: number }) => l.id),
    [listingId],
  );
  t.deepEqual(
    archive.api_keys.map((k: { name: string }) => k.name),
    ['exporter key'],
  );
  t.like(archive.orders[0], { billing: { name: 'Exporting Ltd' }, total_cents: 1500, lines: [{ product: 'launch', amount_cents: 1500 }] });
  for (const section of [
    'drafts',
    'edits',
    'comments',
    'votes',
    'orders',
    'follows',
    'connected_apps',
    'sign_in_identities',
    'newsletter_subscriptions',
  ]) {
    t.true(Array.isArray(archive[section]), section);
  }
  t.false(download.text.includes('password_hash') || download.text.includes('key_hash'), 'no secrets');

  const stranger = await person();
  t.is((await stranger.web.get(path)).status, 404, 'another person’s session does not open it');
  t.is((await new WebClient(env.baseUrl).get(path)).status, 303, 'signed out: to the sign-in page');
  const forged = path.replace(/signature=[^&]+/, 'signature=forged');
  t.is((await me.web.get(forged)).status, 404);
});

test.serial('the download link stops working when it expires (410 in words)', async (t) => {
  const me = await person();
  const asked = await api(env, 'POST', '/me/exports', { key: me.key });
  await testEnv.client.workflow.execute('accountExportWorkflow', {
    taskQueue: TASK_QUEUES.accounts,
    workflowId: `account-export-test-expiry-${asked.body.id}`,
    args: [{ userId: me.userId, exportId: asked.body.id }],
  });
  const link = /\/account\/exports\/\d+\/download\?expires=(\d+)&signature=([A-Za-z0-9_-]+)/.exec(
    (await mailsTo(db(), me.email))[0]!.body_text,
  )!;
  await db()('account_exports')
    .where({ id: asked.body.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const res = await api(env, 'GET', `/me/exports/${asked.body.id}/archive?expires=${link[1]}&signature=${link[2]}`, { key: me.key });
  t.is(res.status, 410);
  t.is(res.body.code, 'export_link_invalid');
  t.regex(res.body.detail, /expired/);
  t.is((await api(env, 'GET', `/me/exports/${asked.body.id}`, { key: me.key })).body.status, 'expired');
});
