import test from 'ava';
import { pino } from 'pino';
import { createWorkflowStarter } from '../../src/temporal/client.ts';
import { createWorkflowDispatcher } from '../../src/temporal/workflow-dispatcher.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { temporalClient } from '../helpers/workflows.ts';

/**
 * Writes record the workflows they need in their own transaction (workflow_starts): while
 * Temporal does not answer they still answer as usual, the api stays ready, and the starts are
 * made once Temporal is back; update.published is recorded with the update itself.
 */

let down: TestEnv;
test.before(async () => {
  down = await startTestEnv(
    import.meta.url,
    { WORKFLOW_START_RETRY_FIRST_MS: '50', WORKFLOW_START_RETRY_MAX_MS: '200' },
    { temporalAddress: '127.0.0.1:1' },
  );
});
test.after.always(() => down?.close());

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await down.services.db(table).where(where).count({ n: '*' }))[0]!.n);

test('Temporal unreachable: writes answer as usual, reads serve, /readyz stays ready; the starts wait for Temporal', async (t) => {
  const owner = await down.user();
  const draft = await api(down, 'POST', '/drafts', { key: owner.key, body: { url: 'https://temporal-away.example/' } });
  t.is(draft.status, 201, JSON.stringify(draft.body));
  t.like(draft.body, { status: 'crawling', workflow_id: `draft:${draft.body.id}` });
  t.is(await count('drafts', { id: draft.body.id }), 1, 'the draft is kept');

  const listingId = await insertLiveListing(down.services.db, {
    name: 'Away Anvils',
    ownerId: owner.userId,
    url: 'https://away-anvils.example/',
  });
  const hook = await api(down, 'POST', '/me/webhooks', {
    key: owner.key,
    body: { url: 'https://hooks.away-anvils.example/in', events: ['update.published'] },
  });
  t.is(hook.status, 201, JSON.stringify(hook.body));
  const update = await api(down, 'POST', `/me/listings/${listingId}/updates`, {
    key: owner.key,
    body: { title: 'Still here', body: 'Offline.' },
  });
  t.is(update.status, 201, JSON.stringify(update.body));
  // The owner's event is recorded with the update, not by the fan-out (which cannot run now).
  t.is(await count('webhook_events', { dedupe_key: `update.published:${update.body.id}` }), 1);

  const ready = await fetch(`${down.baseUrl}/readyz`);
  t.is(ready.status, 200);
  t.deepEqual(await ready.json(), { status: 'degraded', checks: { database: 'ok', temporal: 'unreachable' } });
  t.is((await api(down, 'GET', `/drafts/${draft.body.id}`, { key: owner.key })).status, 200);

  const ids = [`draft:${draft.body.id}`, `listing-update:${update.body.id}`];
  await eventually('the starts to be tried and kept', async () => {
    const rows = await down.services.db('workflow_starts').whereIn('workflow_id', ids).where('attempts', '>', 0);
    return rows.length === 2;
  });

  // Temporal is back (a dispatcher that reaches it): every recorded start is made, the delivery's too.
  const log = pino({ level: 'silent' });
  const workflows = createWorkflowStarter({ address: process.env.TEST_TEMPORAL_ADDRESS!, namespace: down.namespace });
  const back = createWorkflowDispatcher({
    db: down.services.db,
    databaseUrl: down.databaseUrl,
    workflows,
    config: down.services.config,
    log,
  });
  t.teardown(async () => {
    await back.stop();
    await workflows.close();
  });
  back.run();
  await eventually('every start made', async () => (await count('workflow_starts')) === 0, { timeoutMs: 60_000 }).catch(async (err) => {
    t.log(await down.services.db('workflow_starts').select('workflow_id', 'attempts', 'last_error', 'due_at'));
    throw err;
  });
  const { client, close } = await temporalClient({ temporalAddress: process.env.TEST_TEMPORAL_ADDRESS!, namespace: down.namespace });
  t.teardown(close);
  for (const id of ids) t.is((await client.workflow.getHandle(id).describe()).workflowId, id);
  const delivery = (await down.services.db('webhook_deliveries').first('id', 'workflow_started_at'))!;
  t.truthy(delivery.workflow_started_at);
  t.is((await client.workflow.getHandle(`webhook-delivery:${delivery.id}`).describe()).type, 'webhookDeliveryWorkflow');
  for (const id of [...ids, `webhook-delivery:${delivery.id}`])
    await client.workflow
      .getHandle(id)
      .terminate('test over')
      .catch(() => {});
});
