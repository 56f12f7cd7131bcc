import test from 'ava';
import { WorkflowFailedError } from '@temporalio/client';
import { DRAFT_ID, DRAFT_STATUS } from '../../src/workflows/contracts/search-attributes.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { html, serve, serveExampleSite, text, type TestSite } from '../helpers/site.ts';
import { temporalClient } from '../helpers/workflows.ts';
import { eventually } from '../helpers/eventually.ts';

let env: TestEnv;
let site: TestSite;
let closed: TestSite;
let owner: { key: string };

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
  site = await serveExampleSite();
  closed = await serve({ '/': html('<h1>Hidden</h1>'), '/robots.txt': text('User-agent: *\nDisallow: /\n') });
  owner = await env.user();
});
test.after.always(async () => {
  await site?.close();
  await closed?.close();
  await env?.close();
});

/**
 * Workflow ids the visibility query finds, polled until `expected` shows up (visibility lags);
 * without `expected`, what it finds now.
 */
async function visible(query: string, expected?: string): Promise<string[]> {
  const { client, close } = await temporalClient(env);
  try {
    return await eventually(
      `${expected} in ${query}`,
      async () => {
        const ids: string[] = [];
        for await (const run of client.workflow.list({ query })) ids.push(run.workflowId);
        return (expected === undefined || ids.includes(expected)) && ids;
      },
      { intervalMs: 200 },
    );
  } finally {
    await close();
  }
}

async function createDraft(url: string): Promise<{ id: number; workflow_id: string }> {
  const created = await api(env, 'POST', '/drafts', { key: owner.key, body: { url } });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}

test('a failed crawl fails the workflow, with DraftStatus=failed and the reason', async (t) => {
  const draft = await createDraft(closed.url);
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const handle = client.workflow.getHandle(draft.workflow_id);
  const error = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
  t.like(error?.cause, { type: 'robots_disallowed', nonRetryable: true });
  const description = await handle.describe();
  t.is(description.status.name, 'FAILED');
  t.is(description.typedSearchAttributes.get(DRAFT_STATUS), 'failed');
  t.is(description.typedSearchAttributes.get(DRAFT_ID), draft.id);
  t.true((await visible('DraftStatus = "failed" AND ExecutionStatus = "Failed"', draft.workflow_id)).includes(draft.workflow_id));
  const row = await env.services.db('drafts').where({ id: draft.id }).first('status', 'failure_code');
  t.deepEqual({ ...row }, { status: 'failed', failure_code: 'robots_disallowed' });
});

test('a drafted site completes with DraftStatus=ready, and the failed list leaves it out', async (t) => {
  const draft = await createDraft(site.url);
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const handle = client.workflow.getHandle(draft.workflow_id);
  t.is(await handle.result(), 'ready');
  const description = await handle.describe();
  t.is(description.status.name, 'COMPLETED');
  t.is(description.typedSearchAttributes.get(DRAFT_STATUS), 'ready');
  t.true((await visible(`DraftStatus = "ready" AND DraftId = ${draft.id}`, draft.workflow_id)).includes(draft.workflow_id));
  t.false((await visible('DraftStatus = "failed"')).includes(draft.workflow_id));
});

test('a draft still crawling is listed as DraftStatus=crawling', async (t) => {
  // The home page answers only once the test has seen the draft crawling.
  let release = () => {};
  const seen = new Promise<void>((resolve) => (release = resolve));
  const slow = await serve({ '/': (req, res) => void seen.then(() => html('<h1>Slow</h1>')(req, res)) });
  t.teardown(() => slow.close());
  const draft = await createDraft(slow.url);
  const crawling = await visible('DraftStatus = "crawling"', draft.workflow_id);
  release();
  t.true(crawling.includes(draft.workflow_id));
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  t.is(await client.workflow.getHandle(draft.workflow_id).result(), 'ready');
});
