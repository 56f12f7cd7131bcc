import { randomBytes } from 'node:crypto';
import test from 'ava';
import { adminInProcess, adminWith } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { startTestDns, type TestDns } from '../helpers/dns-server.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { closedPort, html, serve, type TestSite } from '../helpers/site.ts';
import { recordHistory, temporalClient } from '../helpers/workflows.ts';
import { companyKey } from '../../src/domain/company.ts';
import { importListing } from '../../src/domain/listings/import-listing.ts';
import { listingImportWorkflowId } from '../../src/workflows/contracts/workflow-ids.ts';

/** listings:import, claims:list and claims:recheck through `main.ts admin`, as support runs them. */

let env: TestEnv;
let dns: TestDns;
let site: TestSite;
let vars: Record<string, string>;

test.before(async () => {
  dns = await startTestDns();
  site = await serve({
    '/': html(`<!doctype html><html><head><title>Seeded Widgets — widgets for everyone</title>
<meta name="description" content="Seeded Widgets makes widgets for small teams."></head>
<body><h1>Seeded Widgets</h1><p>Widgets for small teams, since 2019.</p></body></html>`),
  });
  env = await startTestEnv(import.meta.url, { CLAIM_DNS_SERVERS: dns.server, CLAIM_CHECK_SCHEDULE: '1h/2h' });
  await env.startWorkers();
  vars = {
    CRAWL_ALLOW_PRIVATE_NETWORKS: 'true',
    TEMPORAL_ADDRESS: env.temporalAddress,
    TEMPORAL_NAMESPACE: env.namespace,
    CLAIM_DNS_SERVERS: dns.server,
    CLAIM_CHECK_SCHEDULE: '1h/2h',
  };
});
test.after.always(async () => {
  await env?.close();
  await dns?.close();
  await site?.close();
});

const db = () => env.services.db;
/** Through `main.ts admin` (a new process, as support runs it). */
const run = (...args: string[]) => adminWith(env, vars, ...args);
/** The same commands in this process, for the many cases. */
const here = (...args: string[]) => adminInProcess(env, ...args);

test.serial('listings:import crawls a site on the worker and publishes a live listing without owner, once per company', async (t) => {
  // The CLI has no crawl settings of its own: the worker crawls, with the service's.
  const res = await adminWith(
    env,
    { ...vars, CRAWL_ALLOW_PRIVATE_NETWORKS: 'false' },
    'listings:import',
    '--site',
    'makers',
    '--url',
    site.url,
  );
  t.is(res.code, 0, res.stderr);
  const match = /^imported listing (\d+) (\S+)$/m.exec(res.stdout);
  t.truthy(match, res.stdout);
  const workflowId = listingImportWorkflowId('makers', companyKey(site.url));
  t.is(workflowId, `import:makers:${new URL(site.url).host}`);
  const { client, close } = await temporalClient(env);
  try {
    const described = await client.workflow.getHandle(workflowId).describe();
    t.is(described.type, 'listingImportWorkflow');
    t.is(described.status.name, 'COMPLETED');
    t.is(described.taskQueue, 'drafts');
    t.deepEqual(await client.workflow.getHandle(workflowId).result(), { id: Number(match![1]), slug: match![2] });
  } finally {
    await close();
  }
  await recordHistory(env, workflowId, 'listing-import-workflow-done.json');
  const listing = await db()('listings')
    .where({ id: Number(match![1]) })
    .first();
  t.like(listing, { slug: match![2], status: 'live', owner_id: null, url: site.url });
  t.regex(listing!.name, /Seeded Widgets/);
  t.is((await db()('sites').where({ id: listing!.site_id }).first('key'))!.key, 'makers');

  // Signed-in people see "Claim it"; claim_listing accepts it.
  const user = await env.user();
  t.is((await api(env, 'POST', '/claims', { key: user.key, body: { slug: listing!.slug, method: 'meta' } })).status, 201);

  const again = await here('listings:import', '--site', 'makers', '--url', site.url);
  t.is(again.code, 1);
  t.regex(again.stderr, new RegExp(`listed on this site already: listing ${listing!.id}`));
  await recordHistory(env, listingImportWorkflowId('makers', companyKey(site.url)), 'listing-import-workflow-refused.json');
  const bad = [
    ['listings:import', '--site', 'nope', '--url', site.url],
    ['listings:import', '--site', 'main'],
    ['listings:import', '--site', 'main', '--url', 'ftp://example.com/'],
    ['listings:import', '--site', 'main', '--url', `http://127.0.0.1:${await closedPort()}/`],
  ];
  for (const args of bad) {
    const r = await here(...args);
    t.is(r.code, 1, args.join(' '));
    t.true(r.stderr.trim().length > 0);
    t.false(r.stderr.includes('    at '), 'no stack trace');
  }
  t.is(Number((await db()('listings').where({ url: site.url }).count({ n: '*' }))[0].n), 1);
});

test.serial('a second import of the same company while one runs joins it: one crawl, one listing', async (t) => {
  // The page answers slowly, so the second start finds the first import still crawling.
  const page = html('<!doctype html><title>Twice Imported</title><h1>Twice Imported</h1>');
  const other = await serve({ '/': (req, res) => void setTimeout(() => page(req, res), 1500) });
  try {
    const { id: siteId } = (await db()('sites').where({ key: 'makers' }).first('id'))!;
    const input = { siteId, siteKey: 'makers', url: other.url };
    const [a, b] = await Promise.all([env.services.workflows.importListing(input), env.services.workflows.importListing(input)]);
    t.deepEqual(a, b);
    t.is(other.requests.filter((r) => r === '/').length, 1, 'one crawl');
    t.is(Number((await db()('listings').where({ url: other.url }).count({ n: '*' }))[0].n), 1);
  } finally {
    await other.close();
  }
});

test.serial('a retried import activity finds the listing its earlier attempt committed; a later import is refused', async (t) => {
  const { id: siteId } = (await db()('sites').where({ key: 'makers' }).first('id'))!;
  const listing = await db()('listings').where({ site_id: siteId, url: site.url }).first('id', 'slug');
  const { crawl, baseUrl } = env.services.config;
  const input = { siteId, url: site.url, baseUrl, now: new Date() };
  // The first attempt was scheduled before the listing was made (the first test, seconds ago).
  t.deepEqual(await importListing(db(), crawl, env.services.media, { ...input, resumeSince: new Date(Date.now() - 600_000) }), listing);
  await t.throwsAsync(importListing(db(), crawl, env.services.media, { ...input, resumeSince: new Date(Date.now() + 600_000) }), {
    message: /listed on this site already/,
  });
  await t.throwsAsync(importListing(db(), crawl, env.services.media, input), { message: /listed on this site already/ });
});

test.serial('claims:list filters by status and finds stuck claims; claims:recheck restarts a closed workflow', async (t) => {
  const user = await env.user();
  const tag = `adm${randomBytes(4).toString('hex')}`;
  const id = await insertLiveListing(db(), { name: tag, url: `https://${tag}.com/` });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  const claim = (await api(env, 'POST', '/claims', { key: user.key, body: { slug, method: 'dns' } })).body;

  const listed = await here('claims:list', '--status', 'pending');
  t.is(listed.code, 0, listed.stderr);
  t.regex(listed.stdout, new RegExp(`^${claim.id}\\tpending\\tdns\\t${id} ${slug}\\t${user.email}\\t.*\\tnever$`, 'm'));
  t.false((await here('claims:list', '--status', 'verified')).stdout.includes(`${id} ${slug}`));
  t.false((await here('claims:list', '--stuck')).stdout.includes(`${id} ${slug}`));

  // Its workflow is gone (terminated by an operator, say) while the claim is pending and overdue.
  const { client, close } = await temporalClient(env);
  try {
    await client.workflow.getHandle(claim.workflow_id).terminate('test');
    await db()('claims')
      .where({ id: claim.id })
      .update({ created_at: new Date(Date.now() - 7 * 3600_000) });
    t.regex((await here('claims:list', '--stuck')).stdout, new RegExp(`^${claim.id}\\tpending`, 'm'));

    dns.zone.set(`_listing-directory-challenge.${tag}.com`, { txt: [[claim.instructions.record.value]] });
    const rechecked = await run('claims:recheck', '--id', String(claim.id));
    t.is(rechecked.code, 0, rechecked.stderr);
    t.regex(rechecked.stdout, new RegExp(`claim ${claim.id} is verified \\(dns\\); last check found`));
    // The command is staff_recheck_claim from the shell: audited as the command line.
    t.like(
      await db()('staff_audit')
        .where({ operation: 'staff_recheck_claim', target_id: String(claim.id) })
        .first(),
      {
        user_id: null,
        target_kind: 'claim',
        after: { status: 'verified' },
      },
    );
    t.is((await db()('listings').where({ id }).first('owner_id'))!.owner_id, user.userId);
    const runs = [];
    for await (const w of client.workflow.list({ query: `WorkflowId = '${claim.workflow_id}'` })) runs.push(w.status.name);
    t.is(runs.length, 2, 'a second run of claim:{id}');
  } finally {
    await close();
  }
  for (const args of [
    ['claims:recheck', '--id', 'x'],
    ['claims:recheck', '--id', String(claim.id)],
    ['claims:recheck', '--id', '99999'],
    ['claims:list', '--status', 'weird'],
  ]) {
    const r = await here(...args);
    t.is(r.code, 1, args.join(' '));
    t.false(r.stderr.includes('    at '));
  }
});
