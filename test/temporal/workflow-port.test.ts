import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { temporalClient } from '../helpers/workflows.ts';

/**
 * What the domain asks of running flows goes through the WorkflowStarter port, which answers in
 * its own words: a flow that is not running is `missing`, `false` or `null`, never a Temporal
 * error the domain would have to know. No worker runs here: a started workflow just waits.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
});

test.serial('workflowStatus: running, then terminated; missing for an id with no run', async (t) => {
  const flows = env.services.workflows;
  t.false('client' in flows, 'the port hands out no Temporal client');
  await flows.startOrder({ number: 'LD-PORT-1', expiresAt: new Date(Date.now() + 3600_000).toISOString(), fulfilMaxAttempts: 3 }, []);
  t.is(await flows.workflowStatus('order:LD-PORT-1'), 'running');
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  await client.workflow.getHandle('order:LD-PORT-1').terminate('test over');
  t.is(await flows.workflowStatus('order:LD-PORT-1'), 'terminated');
  t.is(await flows.workflowStatus('order:LD-PORT-NONE'), 'missing');
});

test.serial('retryOrder and verifyClaimNow answer false and null when no run is there', async (t) => {
  const flows = env.services.workflows;
  t.false(await flows.retryOrder('LD-PORT-NONE'));
  t.is(await flows.verifyClaimNow(987_654), null);
});
