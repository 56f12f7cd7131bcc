import test from 'ava';
import { startTestEnv, api, type TestEnv } from '../helpers/env.ts';
import { serve, type TestSite } from '../helpers/site.ts';
import { temporalClient } from '../helpers/workflows.ts';

/**
 * Every workflow start carries its business ids as search attributes and a summary a person can
 * read in the Temporal UI's list. No worker runs here: the started workflows just wait, and
 * describe() shows what the start set.
 */

let env: TestEnv;
let site: TestSite;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  site = await serve({ '/': (_req, res) => res.end('<h1>Acme</h1>') });
});
test.after.always(async () => {
  await env?.close();
  await site?.close();
});

/** Search attributes and summary of a workflow; terminates it (nothing runs it here). */
async function metadata(workflowId: string) {
  const { client, close } = await temporalClient(env);
  try {
    const handle = client.workflow.getHandle(workflowId);
    const described = await handle.describe();
    const summary = await described.staticSummary();
    await handle.terminate('test over');
    return { attributes: described.searchAttributes, summary };
  } finally {
    await close();
  }
}

test.serial('create_draft starts draft:{id} with DraftId, DraftStatus, SiteKey and "Draft N from URL on site"', async (t) => {
  const { key } = await env.user();
  const res = await api(env, 'POST', '/drafts', { key, body: { url: site.url } });
  t.is(res.status, 201, JSON.stringify(res.body));
  const { attributes, summary } = await metadata(`draft:${res.body.id}`);
  t.deepEqual(attributes.DraftId, [res.body.id]);
  t.deepEqual(attributes.DraftStatus, ['crawling']);
  t.deepEqual(attributes.SiteKey, ['main']);
  t.is(summary, `Draft ${res.body.id} from ${site.url} on main`);
});

test.serial('a listing update, a launch, a claim and an order carry their ids and summaries', async (t) => {
  const flows = env.services.workflows;
  await flows.startListingUpdate(7001, 50, 41);
  await flows.recheckLaunch(42, 'makers');
  const now = Date.now();
  await flows.startClaim({ claimId: 7002, listingId: 43, slug: 'acme-analytics', method: 'dns', startedAt: now, expiresAt: now + 86_400_000, schedule: [] });
  await flows.startOrder({ number: 'LD-TEST-7003', expiresAt: new Date(now + 3600_000).toISOString(), fulfilMaxAttempts: 3 }, [44]);

  t.like(await metadata('listing-update:7001'), { attributes: { ListingId: [41] }, summary: 'Update 7001 of listing 41 to its followers' });
  t.like(await metadata('listing:42'), { attributes: { ListingId: [42], SiteKey: ['makers'] }, summary: 'Launch of listing 42 on makers' });
  t.like(await metadata('claim:7002'), { attributes: { ClaimId: [7002], ListingId: [43] }, summary: 'Claim 7002 of acme-analytics by dns' });
  t.like(await metadata('order:LD-TEST-7003'), { attributes: { OrderNumber: ['LD-TEST-7003'], ListingId: [44] }, summary: 'Order LD-TEST-7003 for listing 44' });
});

test.serial('the claim workflow gets the claim input only (the summary fields stay out of its arguments)', async (t) => {
  const now = Date.now();
  await env.services.workflows.startClaim({ claimId: 7004, listingId: 45, slug: 'acme', method: 'meta', startedAt: now, expiresAt: now + 1000, schedule: [] });
  const { client, close } = await temporalClient(env);
  try {
    const history = await client.workflow.getHandle('claim:7004').fetchHistory();
    const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
    const arg = JSON.parse(Buffer.from(started.input!.payloads![0]!.data!).toString());
    t.deepEqual(Object.keys(arg).sort(), ['claimId', 'expiresAt', 'method', 'schedule', 'startedAt']);
    await client.workflow.getHandle('claim:7004').terminate('test over');
  } finally {
    await close();
  }
});
