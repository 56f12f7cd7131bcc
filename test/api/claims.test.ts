import { randomBytes } from 'node:crypto';
import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { startTestDns, type TestDns } from '../helpers/dns-server.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { html, serve, text, type TestSite } from '../helpers/site.ts';
import { workflowResult } from '../helpers/workflows.ts';

/** claim_listing, verify_claim, list_my_claims over REST against a real DNS server and websites. */

type User = { userId: number; key: string; email: string };

let env: TestEnv;
let dns: TestDns;
let site: TestSite;
/** What the loopback website serves; tests change it. */
const served = { meta: '', file: '' };
let owner: User;
let alice: User;
let bob: User;

test.before(async () => {
  dns = await startTestDns();
  site = await serve({
    '/': (_req, res) => html(`<html><head><title>Loop</title>${served.meta}</head><body>Loop</body></html>`)(_req, res),
    '/.well-known/listing-directory-verification.txt': (req, res) => (served.file ? text(served.file) : html('nope', 404))(req, res),
  });
  // Scheduled checks every 30 s: the tests here drive checks with verify_claim.
  env = await startTestEnv(import.meta.url, {
    CLAIM_DNS_SERVERS: dns.server,
    CLAIM_CHECK_SCHEDULE: '30s/1h',
    CLAIM_LIFETIME: '1h',
    // Short, as the tests wait it out between two checks of one claim (the default has its own assertion).
    CLAIM_VERIFY_MIN_INTERVAL: '5s',
  });
  await env.startWorkers();
  [owner, alice, bob] = await Promise.all([env.user(), env.user(), env.user()]);
});
test.after.always(async () => {
  await env?.close();
  await dns?.close();
  await site?.close();
});

const db = () => env.services.db;
const claim = (key: string, body: unknown, headers: Record<string, string> = {}) => api(env, 'POST', '/claims', { key, body, headers });
const verify = (key: string, id: number) => api(env, 'POST', `/claims/${id}/verify`, { key });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A live listing of its own company (`https://{tag}.com/`), optionally owned. */
async function company(ownerId?: number): Promise<{ id: number; slug: string; host: string }> {
  const tag = `acme${randomBytes(4).toString('hex')}`;
  const id = await insertLiveListing(db(), { name: tag, url: `https://${tag}.com/`, ownerId });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  return { id, slug, host: `${tag}.com` };
}

/** verify_claim, waiting out the rate limit when a previous check was too recent. */
async function verifyWhenAllowed(key: string, id: number) {
  for (;;) {
    const res = await verify(key, id);
    if (res.status !== 429) return res;
    await sleep(Number(res.headers.get('retry-after')) * 1000);
  }
}

test('a dns claim: instructions, not found with what was seen, then verified; the owner changes', async (t) => {
  const listing = await company();
  const made = await claim(alice.key, { slug: listing.slug, method: 'dns' });
  t.is(made.status, 201, JSON.stringify(made.body));
  const name = `_listing-directory-challenge.${listing.host}`;
  t.like(made.body, {
    slug: listing.slug,
    listing_id: listing.id,
    method: 'dns',
    status: 'pending',
    last_check: null,
    workflow_id: `claim:${made.body.id}`,
  });
  const { token, record } = made.body.instructions;
  t.regex(token, /^ldv_[A-Za-z0-9_-]{27,}$/);
  t.true(Buffer.from(token.slice(4), 'base64url').length >= 16, 'at least 128 bits');
  t.deepEqual(record, { type: 'TXT', name, value: `listing-directory-verification=${token}` });
  t.true(made.body.instructions.text.includes(name));
  t.is(made.body.email, undefined);
  const expires = Date.parse(made.body.expires_at) - Date.now();
  t.true(expires > 59 * 60_000 && expires <= 3600_000);

  // A second call returns the same pending claim.
  const again = await claim(alice.key, { slug: listing.slug, method: 'dns' });
  t.is(again.body.id, made.body.id);

  dns.zone.set(name, { txt: [['v=spf1 -all'], ['listing-directory-verification=ldv_wrong']] });
  const first = await verify(alice.key, made.body.id);
  t.is(first.status, 200, JSON.stringify(first.body));
  t.like(first.body, { status: 'pending', last_check: { result: 'not_found' } });
  t.true(first.body.last_check.detail.includes('ldv_wrong'));

  dns.zone.set(name, { txt: [['v=spf1 -all'], [record.value]] });
  const second = await verifyWhenAllowed(alice.key, made.body.id);
  t.like(second.body, { status: 'verified', last_check: { result: 'found' } });
  t.truthy(second.body.closed_at);
  t.is((await db()('listings').where({ id: listing.id }).first('owner_id'))!.owner_id, alice.userId);
  t.is(await workflowResult(env, `claim:${made.body.id}`), 'verified');
  // An unowned listing: nobody to tell, but the history has the change.
  const history = await db()('listing_versions').where({ listing_id: listing.id });
  t.is(history.length, 1);
  t.like(history[0], {
    operation: 'claim_verified',
    editor_id: alice.userId,
    changes: { owner_id: { before: null, after: alice.userId } },
  });
  const checks = await db()('claim_checks').where({ claim_id: made.body.id }).orderBy('id');
  t.deepEqual(
    checks.map((c) => [c.trigger, c.result]),
    [
      ['request', 'not_found'],
      ['request', 'found'],
    ],
  );

  // Now alice owns it: claiming it again is a conflict; verifying a closed claim too.
  t.like((await claim(alice.key, { slug: listing.slug, method: 'file' })).body, { status: 409, code: 'claim_own_listing' });
  t.like((await verifyWhenAllowed(alice.key, made.body.id)).body, { status: 409, code: 'claim_not_pending' });
});

test('verify_claim: at most one check per interval per claim (429 with Retry-After), SERVFAIL is an error', async (t) => {
  const listing = await company();
  const made = (await claim(bob.key, { slug: listing.slug, method: 'dns' })).body;
  dns.zone.set(`_listing-directory-challenge.${listing.host}`, { rcode: 'SERVFAIL' });
  const first = await verify(bob.key, made.id);
  t.like(first.body, { status: 'pending', last_check: { result: 'error' } });
  const second = await verify(bob.key, made.id);
  t.is(second.status, 429);
  t.like(second.body, { code: 'rate_limited' });
  const retryAfter = Number(second.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 5, String(retryAfter));
  t.is(
    await db()('claim_checks')
      .where({ claim_id: made.id })
      .count({ n: '*' })
      .then((r) => Number(r[0].n)),
    1,
    'the refused call checked nothing',
  );
  await sleep(retryAfter * 1000);
  t.is((await verify(bob.key, made.id)).status, 200);
  // The default interval is 10 s.
  const { loadConfig } = await import('../../src/config/config.ts');
  t.is(loadConfig({}).claims.verifyIntervalMs, 10_000);
});

test('meta and file claims on a website: the first of two accounts to verify wins, the other claim is canceled', async (t) => {
  const id = await insertLiveListing(db(), { name: `Loop ${randomBytes(3).toString('hex')}`, url: site.url, ownerId: owner.userId });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  const byMeta = (await claim(alice.key, { slug, method: 'meta' })).body;
  const byFile = (await claim(bob.key, { slug, method: 'file' })).body;
  t.is(byMeta.instructions.meta.html, `<meta name="listing-directory-verification" content="${byMeta.instructions.token}">`);
  t.deepEqual(byFile.instructions.file, {
    url: `${site.url.replace(/\/$/, '')}/.well-known/listing-directory-verification.txt`,
    content: byFile.instructions.token,
  });
  t.not(byMeta.instructions.token, byFile.instructions.token);

  served.meta = '';
  served.file = `  ${byFile.instructions.token}\n`;
  const won = await verify(bob.key, byFile.id);
  t.like(won.body, { status: 'verified', last_check: { result: 'found' } });
  // Alice's tag shows up too late: her claim was canceled and her workflow stopped.
  served.meta = byMeta.instructions.meta.html;
  t.like((await verify(alice.key, byMeta.id)).body, { status: 409, code: 'claim_not_pending' });
  t.is(await workflowResult(env, `claim:${byMeta.id}`), 'canceled');
  const mine = (await api(env, 'GET', '/claims', { key: alice.key })).body.items.find((c: { id: number }) => c.id === byMeta.id);
  t.like(mine, { status: 'canceled' });
  t.is((await db()('listings').where({ id }).first('owner_id'))!.owner_id, bob.userId);
  t.is((await db()('claims').where({ id: byMeta.id }).first())!.canceled_by_claim_id, byFile.id);

  // The previous owner is mailed; the history records the move; plan and sections are untouched.
  const mail = await db()('mail_outbox').where({ dedupe_key: `claim-transfer:${byFile.id}` });
  t.is(mail.length, 1);
  t.is(mail[0].to_address, owner.email);
  const [version] = await db()('listing_versions').where({ listing_id: id });
  t.like(version, { operation: 'claim_verified', changes: { owner_id: { before: owner.userId, after: bob.userId } } });
  const told = (await api(env, 'GET', '/me/notifications', { key: owner.key })).body.items.filter(
    (n: { kind: string }) => n.kind === 'listing_claimed',
  );
  t.is(told.length, 1);
  t.like(told[0], { listing: { id, slug, site: 'main' } });
  t.is((await api(env, 'GET', `/me/listings/${id}`, { key: owner.key })).status, 404);
  t.is((await api(env, 'GET', `/me/listings/${id}`, { key: bob.key })).status, 200);
});

test('two claims found at the same moment: exactly one wins, the other ends canceled', async (t) => {
  const listing = await company();
  const [one, two] = [
    await claim(alice.key, { slug: listing.slug, method: 'dns' }),
    await claim(bob.key, { slug: listing.slug, method: 'dns' }),
  ];
  dns.zone.set(`_listing-directory-challenge.${listing.host}`, {
    txt: [[one.body.instructions.record.value], [two.body.instructions.record.value]],
  });
  const results = await Promise.all([verify(alice.key, one.body.id), verify(bob.key, two.body.id)]);
  t.deepEqual(
    results.map((r) => r.status),
    [200, 200],
  );
  t.deepEqual(results.map((r) => r.body.status).sort(), ['canceled', 'verified']);
  const winner = results[0]!.body.status === 'verified' ? alice : bob;
  t.is((await db()('listings').where({ id: listing.id }).first('owner_id'))!.owner_id, winner.userId);
  t.is((await db()('listing_versions').where({ listing_id: listing.id })).length, 1);
  t.deepEqual((await Promise.all([workflowResult(env, one.body.workflow_id), workflowResult(env, two.body.workflow_id)])).sort(), [
    'canceled',
    'verified',
  ]);
});

test('claim_listing refuses bad input with a problem naming the field, and saves nothing', async (t) => {
  const listing = await company(owner.userId);
  const cases: [unknown, number, string, string?][] = [
    [{ slug: listing.slug, method: 'email' }, 400, 'validation_failed', 'email'],
    [{ slug: listing.slug, method: 'dns', email: `boss@${listing.host}` }, 400, 'validation_failed', 'email'],
    [{ slug: listing.slug, method: 'email', email: 'boss@elsewhere.com' }, 400, 'validation_failed', 'email'],
    [{ slug: listing.slug, method: 'email', email: `boss@evil${listing.host}` }, 400, 'validation_failed', 'email'],
    [{ slug: listing.slug, method: 'email', email: 'not an address' }, 400, 'validation_failed', 'email'],
    [{ slug: listing.slug, method: 'carrier-pigeon' }, 400, 'validation_failed', 'method'],
    [{ method: 'dns' }, 400, 'validation_failed', 'slug'],
    [{ slug: listing.slug, method: 'dns', owner_id: alice.userId }, 400, 'validation_failed', 'owner_id'],
    [{ slug: 'no-such-listing', method: 'dns' }, 404, 'not_found'],
  ];
  for (const [body, status, code, path] of cases) {
    const res = await claim(alice.key, body);
    t.is(res.status, status, JSON.stringify(body));
    t.is(res.body.code, code);
    if (path)
      t.true(
        res.body.errors.some((e: { path: string }) => e.path === path),
        JSON.stringify(res.body),
      );
  }
  t.like((await claim(owner.key, { slug: listing.slug, method: 'dns' })).body, { status: 409, code: 'claim_own_listing' });
  t.is(await db()('claims').where({ listing_id: listing.id }).first(), undefined);
});

test('a listing not live yet can be claimed: it holds its company, so submit_draft sends a second owner here', async (t) => {
  const listing = await company(owner.userId);
  await db()('listings').where({ id: listing.id }).update({ status: 'draft' });
  const made = await claim(alice.key, { slug: listing.slug, method: 'dns' });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, { slug: listing.slug, status: 'pending' });
});

test('email claims: only at the registrable domain of a company that is not a free-mail provider or shared host', async (t) => {
  const listing = await company();
  const made = await claim(alice.key, { slug: listing.slug, method: 'email', email: `Boss@Mail.${listing.host}` });
  t.is(made.status, 201, JSON.stringify(made.body));
  t.like(made.body, {
    method: 'email',
    email: `boss@mail.${listing.host}`,
    instructions: { email: { sent_to: `boss@mail.${listing.host}` } },
  });
  t.like((await verify(alice.key, made.body.id)).body, { status: 409, code: 'claim_verified_by_email' });
  const links = await db()('claim_email_links').where({ claim_id: made.body.id });
  t.is(links.length, 1);
  t.false(JSON.stringify(links).includes(made.body.instructions.token));

  for (const url of ['https://gmail.com/', 'https://someone.github.io/', 'https://acme.vercel.app/', 'http://127.0.0.1:9/']) {
    const id = await insertLiveListing(db(), { name: `Shared ${randomBytes(3).toString('hex')}`, url });
    const { slug } = (await db()('listings').where({ id }).first('slug'))!;
    const host = new URL(url).hostname;
    // The listing decides before the address does (an IP host has no address at all).
    const res = await claim(alice.key, { slug, method: 'email', email: host.includes('.0.') ? 'me@example.com' : `me@${host}` });
    t.is(res.status, 422, url);
    t.is(res.body.code, 'email_claim_unavailable');
    t.regex(res.body.detail, /use dns, meta or file/, url);
    // The other methods stay open.
    t.is((await claim(alice.key, { slug, method: 'dns' })).status, 201, url);
  }
  // Under a private suffix the reason names it: no address at vercel.app is the company's.
  const vercel = await db()('listings').where({ url: 'https://acme.vercel.app/' }).first('slug');
  t.regex(
    (await claim(bob.key, { slug: vercel!.slug, method: 'email', email: 'me@acme.vercel.app' })).body.detail,
    /shared domain vercel\.app/,
  );
});

test('BOLA: another account neither sees, verifies nor finds a claim', async (t) => {
  const listing = await company();
  const made = (await claim(alice.key, { slug: listing.slug, method: 'dns' })).body;
  const res = await verify(bob.key, made.id);
  t.is(res.status, 404);
  t.like(res.body, { code: 'not_found' });
  t.false((await api(env, 'GET', '/claims?per_page=100', { key: bob.key })).body.items.some((c: { id: number }) => c.id === made.id));
  t.is((await verify(alice.key, 2_000_000)).status, 404);
  t.is(await db()('claim_checks').where({ claim_id: made.id }).first(), undefined);
});

test('scopes: listings:write to claim and verify, account:read to list; no key is 401', async (t) => {
  const listing = await company();
  const reader = await env.user(['account:read']);
  const writer = await env.user(['listings:write']);
  t.is((await claim('', { slug: listing.slug, method: 'dns' })).status, 401);
  t.like((await claim(reader.key, { slug: listing.slug, method: 'dns' })).body, { status: 403, code: 'insufficient_scope' });
  const made = await claim(writer.key, { slug: listing.slug, method: 'dns' });
  t.is(made.status, 201);
  t.is((await verify(reader.key, made.body.id)).status, 403);
  t.is((await api(env, 'GET', '/claims', { key: writer.key })).status, 403);
  t.is((await api(env, 'GET', '/claims')).status, 401);
});

test('list_my_claims: newest first, paginated, with instructions', async (t) => {
  const user = await env.user();
  const ids: number[] = [];
  for (const method of ['dns', 'meta', 'file']) {
    const listing = await company();
    ids.push((await claim(user.key, { slug: listing.slug, method })).body.id);
  }
  const page1 = await api(env, 'GET', '/claims?per_page=2', { key: user.key });
  t.like(page1.body, { page: 1, per_page: 2, total: 3 });
  t.deepEqual(
    page1.body.items.map((c: { id: number }) => c.id),
    [ids[2], ids[1]],
  );
  t.truthy(page1.body.items[0].instructions.file);
  const page2 = await api(env, 'GET', '/claims?per_page=2&page=2', { key: user.key });
  t.deepEqual(
    page2.body.items.map((c: { id: number }) => c.id),
    [ids[0]],
  );
  t.is((await api(env, 'GET', '/claims?per_page=101', { key: user.key })).status, 400);
});

test('claim_listing with an Idempotency-Key replays the same claim', async (t) => {
  const listing = await company();
  const headers = { 'Idempotency-Key': `claim-${randomBytes(4).toString('hex')}` };
  const first = await claim(alice.key, { slug: listing.slug, method: 'file' }, headers);
  const replay = await claim(alice.key, { slug: listing.slug, method: 'file' }, headers);
  t.is(replay.body.id, first.body.id);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.is((await claim(alice.key, { slug: listing.slug, method: 'dns' }, headers)).status, 422);
});
