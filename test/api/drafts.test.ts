import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { html, serve, text, type Handler, type TestSite } from '../helpers/site.ts';
import { WebClient } from '../helpers/web.ts';
import { eventually } from '../helpers/eventually.ts';

const HOME = `<!doctype html><html><head>
<title>Acme Rockets | Rockets for small teams</title>
<meta property="og:title" content="Rockets for small teams">
<meta name="description" content="Acme Rockets builds reusable rockets that small teams can launch from a parking lot.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme Rockets",
"legalName":"Acme Rockets Inc.","foundingDate":"2019-03-01","sameAs":["https://github.com/acme-rockets"]}</script>
</head><body><h1>Rockets for small teams</h1>
<p>Reusable rockets, launched from anywhere.</p>
<a href="/about">About us</a> <a href="mailto:hello@acmerockets.com">Contact</a>
</body></html>`;

const ABOUT = `<!doctype html><html><head><title>About Acme Rockets</title></head><body>
<h1>About</h1><p>Acme Rockets was founded in 2019 and is headquartered in Toulouse, France.</p></body></html>`;

let env: TestEnv;
let site: TestSite;
let owner: { userId: number; key: string };
let other: { userId: number; key: string };

test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
  site = await serve({
    '/': html(HOME),
    '/about': html(ABOUT),
    '/robots.txt': text('User-agent: *\nDisallow: /private\n'),
  });
  owner = await env.user();
  other = await env.user();
});
test.after.always(async () => {
  await site?.close();
  await env?.close();
});

async function waitForDraft(key: string, id: number) {
  return eventually(
    `draft ${id} to finish`,
    async () => {
      const res = await api(env, 'GET', `/drafts/${id}`, { key });
      if (res.status !== 200) throw new Error(`get_draft ${id}: ${res.status} ${JSON.stringify(res.body)}`);
      return !['crawling', 'drafting'].includes(res.body.status) && res.body;
    },
    { timeoutMs: 60_000 },
  );
}

/** Drafts of one owner (tests in this file run concurrently, so never count them all). */
async function draftCount(ownerId: number): Promise<number> {
  const [{ count }] = await env.services.db('drafts').where({ owner_id: ownerId }).count({ count: '*' });
  return Number(count);
}

/** Writes the history of a finished workflow as a replay fixture when UPDATE_FIXTURES=1. */
async function recordHistory(workflowId: string, fixture: string) {
  if (process.env.UPDATE_FIXTURES !== '1') return;
  const connection = await Connection.connect({ address: env.temporalAddress });
  const client = new Client({ connection, namespace: env.namespace });
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await connection.close();
  const file = path.resolve(import.meta.dirname, '../fixtures', fixture);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, historyToJSON(history));
}

test('website → draft → edit → submit → listing', async (t) => {
  const created = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: site.url } });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body.status, 'crawling');
  t.is(created.body.workflow_id, `draft:${created.body.id}`);
  t.is(created.body.fields, null);

  const ready = await waitForDraft(owner.key, created.body.id);
  t.is(ready.status, 'ready', JSON.stringify(ready.failure));
  t.is(ready.fields.name, 'Acme Rockets');
  t.is(ready.fields.headline, 'Rockets for small teams');
  t.is(ready.fields.contact_email, 'hello@acmerockets.com');
  t.is(ready.fields.facts.founded_year, 2019);
  t.is(ready.fields.socials.github, 'https://github.com/acme-rockets');
  t.is(ready.evidence.name.source_url.startsWith(site.url), true);
  t.true(ready.evidence.name.snippet.includes('Acme Rockets'));
  t.true(site.requests.includes('/robots.txt'));
  t.true(site.requests.includes('/about'));
  await recordHistory(ready.workflow_id, 'draft-workflow-ready.json');

  const edited = await api(env, 'PATCH', `/drafts/${ready.id}`, {
    key: owner.key,
    body: { headline: 'Reusable rockets for everyone', categories: ['travel'] },
  });
  t.is(edited.status, 200, JSON.stringify(edited.body));
  t.is(edited.body.fields.headline, 'Reusable rockets for everyone');
  t.is(edited.body.fields.name, 'Acme Rockets');
  t.deepEqual(edited.body.evidence, ready.evidence);

  const submitted = await api(env, 'POST', `/drafts/${ready.id}/submit`, { key: owner.key });
  t.is(submitted.status, 201, JSON.stringify(submitted.body));
  const listingId = submitted.body.listing_id;

  const mine = await api(env, 'GET', '/me/listings', { key: owner.key });
  t.is(mine.status, 200);
  t.deepEqual(
    mine.body.items.map((l: { id: number }) => l.id),
    [listingId],
  );
  const listing = await api(env, 'GET', `/me/listings/${listingId}`, { key: owner.key });
  t.is(listing.status, 200);
  t.is(listing.body.status, 'draft');
  t.is(listing.body.name, 'Acme Rockets');
  t.is(listing.body.headline, 'Reusable rockets for everyone');
  t.regex(listing.body.slug, /^acme-rockets/);
  t.deepEqual(listing.body.evidence, ready.evidence);

  const again = await api(env, 'POST', `/drafts/${ready.id}/submit`, { key: owner.key });
  t.is(again.status, 409);
  t.is(again.body.code, 'draft_submitted');
  const editAfter = await api(env, 'PATCH', `/drafts/${ready.id}`, { key: owner.key, body: { headline: 'x' } });
  t.is(editAfter.status, 409);

  // Another owner sees none of it.
  t.is((await api(env, 'GET', `/drafts/${ready.id}`, { key: other.key })).status, 404);
  t.is((await api(env, 'PATCH', `/drafts/${ready.id}`, { key: other.key, body: { headline: 'mine' } })).status, 404);
  t.is((await api(env, 'POST', `/drafts/${ready.id}/submit`, { key: other.key })).status, 404);
  const foreign = await api(env, 'GET', `/me/listings/${listingId}`, { key: other.key });
  t.is(foreign.status, 404);
  t.is(foreign.body.code, 'not_found');
  t.deepEqual((await api(env, 'GET', '/me/listings', { key: other.key })).body.items, []);

  // One listing per company and site: another account drafting the same website is sent to claim it.
  const second = await api(env, 'POST', '/drafts', { key: other.key, body: { url: site.url } });
  const secondReady = await waitForDraft(other.key, second.body.id);
  const refused = await api(env, 'POST', `/drafts/${secondReady.id}/submit`, { key: other.key });
  t.is(refused.status, 409, JSON.stringify(refused.body));
  t.is(refused.headers.get('content-type'), 'application/problem+json');
  t.like(refused.body, {
    code: 'already_listed',
    slug: listing.body.slug,
    claim_url: `${env.baseUrl}/account/claims/new?slug=${encodeURIComponent(listing.body.slug)}`,
  });
  t.regex(refused.body.detail, /claim_listing/);
  t.is((await api(env, 'GET', `/drafts/${secondReady.id}`, { key: other.key })).body.status, 'ready', 'the draft stays ready');
  t.deepEqual((await api(env, 'GET', '/me/listings', { key: other.key })).body.items, []);
  // The owner drafting it again is told the listing is theirs.
  const mineAgain = await readyDraft(owner.userId, `${site.url}about`);
  const own = await api(env, 'POST', `/drafts/${mineAgain}/submit`, { key: owner.key });
  t.like(own.body, { status: 409, code: 'already_listed', slug: listing.body.slug });
  t.regex(own.body.detail, /yours/);
});

/** A draft as the workflow leaves it once drafted (status ready), of `url`, on the main site. */
async function readyDraft(ownerId: number, url: string, name = 'Drafted Co'): Promise<number> {
  const db = env.services.db;
  const siteRow = await db('sites').where({ key: 'main' }).first('id');
  const fields = {
    name,
    headline: null,
    summary: null,
    logo_url: null,
    image_url: null,
    facts: {},
    socials: {},
    faqs: [],
    categories: [],
    contact_email: null,
  };
  const [{ id }] = await db('drafts')
    .insert({ owner_id: ownerId, site_id: siteRow!.id, url, status: 'ready', fields: JSON.stringify(fields), evidence: '{}' })
    .returning('id');
  return id;
}

const tag = () => randomBytes(4).toString('hex');
const submit = (key: string, draftId: number) => api(env, 'POST', `/drafts/${draftId}/submit`, { key });
const companyOfListing = async (id: number) => (await env.services.db('listings').where({ id }).first('company_domain'))!.company_domain;

test('subdomains of vercel.app and github.io are companies of their own; a second listing of one is already_listed', async (t) => {
  const [a, b, c] = [await env.user(), await env.user(), await env.user()];
  const n = tag();
  const hosts = [`acme-${n}.vercel.app`, `zeta-${n}.vercel.app`, `a-${n}.github.io`, `b-${n}.github.io`];
  const listed: { id: number; slug: string }[] = [];
  for (const [i, host] of hosts.entries()) {
    const user = i % 2 === 0 ? a : b;
    const res = await submit(user.key, await readyDraft(user.userId, `https://${host}/`, `Co ${host}`));
    t.is(res.status, 201, `${host}: ${JSON.stringify(res.body)}`);
    t.is(await companyOfListing(res.body.listing_id), host);
    const { slug } = (await env.services.db('listings').where({ id: res.body.listing_id }).first('slug'))!;
    listed.push({ id: res.body.listing_id, slug });
  }
  // www. and a path are still acme's website.
  const again = await submit(c.key, await readyDraft(c.userId, `https://www.${hosts[0]}/pricing`));
  t.is(again.status, 409);
  t.like(again.body, { code: 'already_listed', slug: listed[0]!.slug });
  t.regex(again.body.detail, new RegExp(`${hosts[0]!.replace(/\./g, '\\.')} is listed on this site already`));
});

test('websites given by an IP address are one company per address and port', async (t) => {
  const [a, b] = [await env.user(), await env.user()];
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const first = await submit(a.key, await readyDraft(a.userId, `http://127.0.0.1:${port}/`));
  const second = await submit(b.key, await readyDraft(b.userId, `http://127.0.0.1:${port + 1}/`));
  t.is(first.status, 201, JSON.stringify(first.body));
  t.is(second.status, 201, JSON.stringify(second.body));
  t.is(await companyOfListing(first.body.listing_id), `127.0.0.1:${port}`);
  const samePort = await submit(b.key, await readyDraft(b.userId, `http://127.0.0.1:${port}/about`));
  t.like(samePort.body, { status: 409, code: 'already_listed' });
});

test('two submissions of one company at once make exactly one listing', async (t) => {
  const users = await Promise.all([1, 2, 3, 4, 5].map(() => env.user()));
  const host = `www.race-${tag()}.com`;
  const drafts = await Promise.all(users.map((u) => readyDraft(u.userId, `https://${host}/`)));
  const results = await Promise.all(users.map((u, i) => submit(u.key, drafts[i]!)));
  t.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409], JSON.stringify(results.map((r) => r.body)));
  t.true(results.filter((r) => r.status === 409).every((r) => r.body.code === 'already_listed'));
  const [{ count }] = await env.services
    .db('listings')
    .where({ company_domain: host.slice(4) })
    .count({ count: '*' });
  t.is(Number(count), 1);
  t.is(Number((await env.services.db('drafts').whereIn('id', drafts).where({ status: 'submitted' }).count({ n: '*' }))[0].n), 1);
});

test('two companies of one name submitted at once: two listings with their own slugs, never a 500', async (t) => {
  const users = await Promise.all([1, 2, 3].map(() => env.user()));
  const name = `Same Name ${tag()}`;
  const drafts = await Promise.all(users.map((u) => readyDraft(u.userId, `https://same-${tag()}.com/`, name)));
  const results = await Promise.all(users.map((u, i) => submit(u.key, drafts[i]!)));
  t.deepEqual(
    results.map((r) => r.status),
    [201, 201, 201],
    JSON.stringify(results.map((r) => r.body)),
  );
  const slugs = await env.services
    .db('listings')
    .whereIn(
      'id',
      results.map((r) => r.body.listing_id),
    )
    .pluck('slug');
  t.is(new Set(slugs).size, 3);
});

test('submit_draft over MCP: already_listed is the problem REST gives, with slug and claim_url', async (t) => {
  const parity = mcpParity(env);
  t.teardown(() => parity.close());
  const [a, b, c] = [await env.user(), await env.user(), await env.user()];
  const url = `https://mcp-${tag()}.netlify.app/`;
  const made = await submit(a.key, await readyDraft(a.userId, url));
  t.is(made.status, 201);
  const { slug } = (await env.services.db('listings').where({ id: made.body.listing_id }).first('slug'))!;
  const viaMcp = await parity.viaMcp(b.key, 'submit_draft', { id: await readyDraft(b.userId, url) });
  const viaRest = await parity.viaRest(c.key, 'submit_draft', { id: await readyDraft(c.userId, url) });
  t.true(viaMcp.error);
  const { request_id: _m, ...fromTool } = viaMcp.body;
  const { request_id: _r, ...fromRoute } = viaRest.body;
  t.deepEqual(fromTool, fromRoute);
  t.like(fromTool, {
    status: 409,
    code: 'already_listed',
    slug,
    claim_url: `${env.baseUrl}/account/claims/new?slug=${encodeURIComponent(slug)}`,
  });
});

test('the draft page says in words that the company is listed, with a link to claim it', async (t) => {
  const a = await env.user();
  const url = `https://web-${tag()}.org/`;
  const made = await submit(a.key, await readyDraft(a.userId, url));
  const { slug } = (await env.services.db('listings').where({ id: made.body.listing_id }).first('slug'))!;
  const email = `web-${tag()}@example.com`;
  const person = await createVerifiedUser(env.services.db, email, 'draft page password');
  const client = new WebClient(env.baseUrl);
  await client.signIn(email, 'draft page password');
  const draftId = await readyDraft(person.id, url);
  const _csrf = await client.csrfFrom(`/account/drafts/${draftId}`);
  const page = await client.post(`/account/drafts/${draftId}/submit`, { _csrf });
  t.is(page.status, 409);
  const alert = page.$('[data-code=already_listed]');
  t.regex(alert.text(), /already has a listing on this site/);
  t.is(
    alert
      .find('a')
      .filter((_, el) => /claim that listing/.test(page.$(el).text()))
      .attr('href'),
    `/account/claims/new?slug=${encodeURIComponent(slug)}`,
  );
  t.false(page.text.includes('claim_url'), 'words for people, not the API’s field names');
});

test('a site that robots.txt closes fails the draft with the reason', async (t) => {
  const closed = await serve({ '/': html(HOME), '/robots.txt': text('User-agent: *\nDisallow: /\n') });
  t.teardown(() => closed.close());
  const created = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: closed.url } });
  t.is(created.status, 201);
  const failed = await waitForDraft(owner.key, created.body.id);
  t.is(failed.status, 'failed');
  t.is(failed.failure.code, 'robots_disallowed');
  t.true(failed.failure.reason.length > 10);
  t.is(failed.fields, null);
  t.false(closed.requests.includes('/'));
  await recordHistory(failed.workflow_id, 'draft-workflow-failed.json');
  const submit = await api(env, 'POST', `/drafts/${failed.id}/submit`, { key: owner.key });
  t.is(submit.status, 409);
  t.is(submit.body.code, 'draft_failed');
});

test('a missing home page fails the draft as http_error', async (t) => {
  const gone = await serve({});
  t.teardown(() => gone.close());
  const created = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: gone.url } });
  const failed = await waitForDraft(owner.key, created.body.id);
  t.is(failed.status, 'failed');
  t.is(failed.failure.code, 'http_error');
  t.regex(failed.failure.reason, /404/);
});

test('submit and edit while crawling are conflicts', async (t) => {
  // The site answers only once both refusals are seen: the crawl is still running for each.
  let answer!: () => void;
  const released = new Promise<void>((resolve) => (answer = resolve));
  const late: Handler = (req, res) => void released.then(() => html(HOME)(req, res));
  const slow = await serve({ '/': late });
  t.teardown(() => slow.close());
  const created = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: slow.url } });
  t.is(created.status, 201);
  const submit = await api(env, 'POST', `/drafts/${created.body.id}/submit`, { key: owner.key });
  t.is(submit.status, 409);
  t.is(submit.body.code, 'draft_crawling');
  t.is(submit.headers.get('content-type'), 'application/problem+json');
  const edit = await api(env, 'PATCH', `/drafts/${created.body.id}`, { key: owner.key, body: { name: 'Early' } });
  t.is(edit.status, 409);
  answer();
  const done = await waitForDraft(owner.key, created.body.id);
  t.is(done.status, 'ready');
  t.is(done.fields.name, 'Acme Rockets');
});

test('create_draft takes a website without a scheme and adds https:// itself', async (t) => {
  const owner = await env.user();
  const bare = `127.0.0.1:${new URL(site.url).port}/about`;
  const res = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: `  ${bare} ` } });
  t.is(res.status, 201);
  t.is(res.body.url, `https://${bare}`);
  const stored = await env.services.db('drafts').where({ id: res.body.id }).first('url');
  t.is(stored!.url, `https://${bare}`);
  const otherScheme = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: 'ftp://example.com/' } });
  t.is(otherScheme.status, 400);
  t.regex(otherScheme.body.errors[0].message, /such as example\.org/);
});

test('create_draft refuses bad URLs and unknown sites and stores nothing', async (t) => {
  const owner = await env.user();
  for (const url of ['ftp://example.com/', 'not a url', 'javascript:alert(1)', '', 'http://', 'x'.repeat(5000)]) {
    const res = await api(env, 'POST', '/drafts', { key: owner.key, body: { url } });
    t.is(res.status, 400, url);
    t.is(res.body.code, 'validation_failed', url);
    t.deepEqual([...new Set(res.body.errors.map((e: { path: string }) => e.path))], ['url'], url);
  }
  const missing = await api(env, 'POST', '/drafts', { key: owner.key, body: {} });
  t.is(missing.status, 400);
  t.deepEqual(
    missing.body.errors.map((e: { path: string }) => e.path),
    ['url'],
  );
  const unknownSite = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: site.url, site: 'nope' } });
  t.is(unknownSite.status, 400);
  t.is(unknownSite.body.code, 'unknown_site');
  const credentials = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: 'http://user:pw@example.com/' } });
  t.is(credentials.status, 400);
  const notJson = await api(env, 'POST', '/drafts', { key: owner.key, body: '{"url":' });
  t.is(notJson.status, 400);
  t.is(notJson.body.code, 'invalid_json');
  t.is(await draftCount(owner.userId), 0);
});

test('update_draft validates the fields it edits', async (t) => {
  const created = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: site.url } });
  const ready = await waitForDraft(owner.key, created.body.id);
  const cases: [unknown, string][] = [
    [{ headline: 'x'.repeat(71) }, 'headline'],
    [{ summary: 'x'.repeat(301) }, 'summary'],
    [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
    [{ socials: { myspace: 'https://myspace.com/a' } }, 'socials.myspace'],
    [{ facts: { founded_year: 'soon' } }, 'facts.founded_year'],
    [{ contact_email: 'not-an-email' }, 'contact_email'],
    [{ status: 'live' }, 'status'],
  ];
  for (const [body, path] of cases) {
    const res = await api(env, 'PATCH', `/drafts/${ready.id}`, { key: owner.key, body });
    t.is(res.status, 400, JSON.stringify(body));
    t.true(
      res.body.errors.some((e: { path: string }) => e.path === path),
      `${JSON.stringify(body)} → ${JSON.stringify(res.body.errors)}`,
    );
  }
  const after = await api(env, 'GET', `/drafts/${ready.id}`, { key: owner.key });
  t.deepEqual(after.body.fields, ready.fields);
});

test('unknown ids are 404 and malformed ids are 400', async (t) => {
  for (const [method, path] of [
    ['GET', '/drafts/999999'],
    ['PATCH', '/drafts/999999'],
    ['POST', '/drafts/999999/submit'],
    ['GET', '/me/listings/999999'],
  ] as const) {
    const res = await api(env, method, path, { key: owner.key, body: method === 'PATCH' ? { name: 'x' } : undefined });
    t.is(res.status, 404, `${method} ${path}`);
    t.is(res.body.code, 'not_found');
  }
  const bad = await api(env, 'GET', '/drafts/abc', { key: owner.key });
  t.is(bad.status, 400);
  t.deepEqual(
    bad.body.errors.map((e: { path: string }) => e.path),
    ['id'],
  );
});

test('missing key is 401, a key without the scope is 403', async (t) => {
  const anonymous = await api(env, 'POST', '/drafts', { body: { url: site.url } });
  t.is(anonymous.status, 401);
  t.is(anonymous.body.code, 'unauthorized');
  t.regex(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);
  const wrongKey = await api(env, 'GET', '/me/listings', { key: 'ld_not_a_real_key' });
  t.is(wrongKey.status, 401);
  const reader = await env.user(['account:read']);
  const forbidden = await api(env, 'POST', '/drafts', { key: reader.key, body: { url: site.url } });
  t.is(forbidden.status, 403);
  t.is(forbidden.body.code, 'insufficient_scope');
  const writer = await env.user(['listings:write']);
  const noRead = await api(env, 'GET', '/me/listings', { key: writer.key });
  t.is(noRead.status, 403);
});

test('Idempotency-Key replays the first answer and refuses another body', async (t) => {
  const owner = await env.user();
  const other = await env.user();
  const headers = { 'idempotency-key': 'create-once-1' };
  const first = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: site.url }, headers });
  t.is(first.status, 201);
  const replay = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: site.url }, headers });
  t.is(replay.status, 201);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.is(replay.body.id, first.body.id);
  const conflict = await api(env, 'POST', '/drafts', { key: owner.key, body: { url: `${site.url}other` }, headers });
  t.is(conflict.status, 422);
  t.is(conflict.body.code, 'idempotency_conflict');
  // The one key rule of REST and MCP: 1 to 255 characters, else 400 invalid_idempotency_key naming the header.
  const tooLong = await api(env, 'POST', '/drafts', {
    key: owner.key,
    body: { url: site.url },
    headers: { 'idempotency-key': 'k'.repeat(256) },
  });
  t.is(tooLong.status, 400);
  t.is(tooLong.body.code, 'invalid_idempotency_key');
  t.deepEqual(
    tooLong.body.errors.map((e: { path: string }) => e.path),
    ['Idempotency-Key'],
  );
  // Keys belong to their caller: another owner with the same key gets a draft of its own.
  const foreign = await api(env, 'POST', '/drafts', { key: other.key, body: { url: site.url }, headers });
  t.is(foreign.status, 201);
  t.not(foreign.body.id, first.body.id);
  t.is(await draftCount(owner.userId), 1);
  t.is(await draftCount(other.userId), 1);
  await waitForDraft(owner.key, first.body.id);
  await waitForDraft(other.key, foreign.body.id);
});

test('create_draft refuses private addresses unless allowed, and stores nothing', async (t) => {
  const guarded = await startTestEnv(import.meta.url, { CRAWL_ALLOW_PRIVATE_NETWORKS: 'false' });
  t.teardown(() => guarded.close());
  const user = await guarded.user();
  for (const url of [site.url, 'http://[::1]/', 'http://169.254.169.254/latest/meta-data/', 'http://localhost/', 'http://10.0.0.1/']) {
    const res = await api(guarded, 'POST', '/drafts', { key: user.key, body: { url } });
    t.is(res.status, 400, url);
    t.is(res.body.code, 'address_refused', url);
  }
  const [{ count }] = await guarded.services.db('drafts').count({ count: '*' });
  t.is(Number(count), 0);
});
