import test from 'ava';
import { adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { html, serve, type TestSite } from '../helpers/site.ts';
import { temporalClient } from '../helpers/workflows.ts';
import { companyKey } from '../../src/domain/company.ts';
import { listingImportWorkflowId } from '../../src/workflows/contracts/workflow-ids.ts';

/** listings:import where Temporal is up but no worker runs: a clear refusal, not a wait for ever. */

let env: TestEnv;
let site: TestSite;
test.before(async () => {
  site = await serve({ '/': html('<!doctype html><title>Nobody Crawls</title><h1>Nobody Crawls</h1>') });
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
  await site?.close();
});

test('without a worker listings:import exits 1 saying so, and its workflow waits for one', async (t) => {
  const res = await adminInProcess(env, 'listings:import', '--site', 'makers', '--url', site.url);
  t.is(res.code, 1, res.stdout);
  t.regex(res.stderr, /No worker polls the task queue "drafts"/);
  t.false(res.stderr.includes('    at '), 'no stack trace');
  const { client, close } = await temporalClient(env);
  try {
    const handle = client.workflow.getHandle(listingImportWorkflowId('makers', companyKey(site.url)));
    t.is((await handle.describe()).status.name, 'RUNNING');
    await handle.terminate('test');
  } finally {
    await close();
  }
  t.is(Number((await env.services.db('listings').where({ url: site.url }).count({ n: '*' }))[0].n), 0);
});
