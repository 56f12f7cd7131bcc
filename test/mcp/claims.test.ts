import { randomBytes } from 'node:crypto';
import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { startTestDns, type TestDns } from '../helpers/dns-server.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';

/** Claims through MCP: the same results, problems, ownership and idempotency as REST. */

let env: TestEnv;
let dns: TestDns;
let parity: ReturnType<typeof mcpParity>;

test.before(async () => {
  dns = await startTestDns();
  env = await startTestEnv(import.meta.url, { CLAIM_DNS_SERVERS: dns.server, CLAIM_CHECK_SCHEDULE: '1h/2h' });
  await env.startWorkers();
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
  await dns?.close();
});

const db = () => env.services.db;

/** A user and an unowned live listing of its own company; `tag` is in its name, slug and host. */
async function twin() {
  const tag = `mcp${randomBytes(4).toString('hex')}`;
  const user = await env.user();
  const id = await insertLiveListing(db(), { name: tag, url: `https://${tag}.com/` });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  return { tag, user, id, slug: slug as string };
}

/** Masks what differs between two identical fixtures: ids, times, the tag and the claim token (when given). */
function normalize(value: unknown, tag: string, token: string, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v, tag, token, key));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, tag, token, k)]));
  if (value !== null && /(^|_)id$/.test(key)) return '<id>';
  if (typeof value !== 'string') return value;
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value)) return '<time>';
  const masked = token ? value.replaceAll(token, '<token>') : value;
  return masked.replaceAll(tag, '<tag>').replace(/(claim:|Claim )\d+/g, '$1<id>');
}

test('claim_listing and verify_claim give over MCP what they give over REST', async (t) => {
  const users = [await env.user(), await env.user()];
  for (const method of ['dns', 'email'] as const) {
    // A company each time: a second claim on a listing would return the first one.
    const [a, b] = [
      { ...(await twin()), user: users[0]! },
      { ...(await twin()), user: users[1]! },
    ];
    const args = (o: typeof a) => ({ slug: o.slug, method, ...(method === 'email' ? { email: `boss@${o.tag}.com` } : {}) });
    const mcp = await parity.viaMcp(a.user.key, 'claim_listing', args(a));
    const rest = await parity.viaRest(b.user.key, 'claim_listing', args(b));
    t.false(mcp.error, JSON.stringify(mcp.body));
    t.is(rest.status, 201);
    t.deepEqual(normalize(mcp.body, a.tag, mcp.body.instructions.token), normalize(rest.body, b.tag, rest.body.instructions.token));
    t.like(mcp.body, { method, status: 'pending', slug: a.slug });
    if (method === 'email') {
      const [verifyMcp, verifyRest] = [
        await parity.viaMcp(a.user.key, 'verify_claim', { claim_id: mcp.body.id }),
        await parity.viaRest(b.user.key, 'verify_claim', { claim_id: rest.body.id }),
      ];
      t.true(verifyMcp.error);
      const { request_id: _a, ...fromTool } = verifyMcp.body;
      const { request_id: _b, ...fromRoute } = verifyRest.body;
      t.deepEqual(normalize(fromTool, a.tag, ''), normalize(fromRoute, b.tag, ''));
      t.like(fromTool, { status: 409, code: 'claim_verified_by_email' });
      continue;
    }
    const verified = await parity.viaMcp(a.user.key, 'verify_claim', { claim_id: mcp.body.id });
    const checked = await parity.viaRest(b.user.key, 'verify_claim', { claim_id: rest.body.id });
    t.false(verified.error, JSON.stringify(verified.body));
    t.deepEqual(normalize(verified.body, a.tag, mcp.body.instructions.token), normalize(checked.body, b.tag, rest.body.instructions.token));
    t.like(verified.body, { last_check: { result: 'not_found' } });
  }
  // list_my_claims is the same list either way.
  const listed = await parity.viaMcp(users[0]!.key, 'list_my_claims', { per_page: 10 });
  const listedRest = await parity.viaRest(users[0]!.key, 'list_my_claims', { per_page: 10 });
  t.deepEqual(listed.body, listedRest.body);
  t.is(listed.body.total, 2);
});

test('bad input, BOLA and scopes: the problem objects of REST', async (t) => {
  const owner = await twin();
  const stranger = await env.user();
  const reader = await env.user(['account:read']);
  const made = (await parity.viaMcp(owner.user.key, 'claim_listing', { slug: owner.slug, method: 'dns' })).body;
  const cases: [string, string, Record<string, unknown>, number, string][] = [
    [stranger.key, 'verify_claim', { claim_id: made.id }, 404, 'not_found'],
    [stranger.key, 'claim_listing', { slug: owner.slug, method: 'dns', email: `x@${owner.tag}.com` }, 400, 'validation_failed'],
    [stranger.key, 'claim_listing', { slug: owner.slug, method: 'sms' }, 400, 'validation_failed'],
    [stranger.key, 'claim_listing', { slug: 'nope-nope', method: 'dns' }, 404, 'not_found'],
    [stranger.key, 'verify_claim', { claim_id: 'one' }, 400, 'validation_failed'],
  ];
  for (const [key, name, args, status, code] of cases) {
    const mcp = await parity.viaMcp(key, name, args);
    const rest = await parity.viaRest(key, name, args);
    t.true(mcp.error, name);
    t.like(mcp.body, { status, code }, `${name} ${JSON.stringify(args)}`);
    const { request_id: _a, ...fromTool } = mcp.body;
    const { request_id: _b, ...fromRoute } = rest.body;
    t.deepEqual(fromTool, fromRoute, name);
  }
  // A missing scope is HTTP 403 on /mcp too (the client then asks for more), as on REST.
  await t.throwsAsync(parity.viaMcp(reader.key, 'claim_listing', { slug: owner.slug, method: 'dns' }), { message: /Insufficient scope/ });
  t.is((await parity.viaRest(reader.key, 'claim_listing', { slug: owner.slug, method: 'dns' })).status, 403);
  t.false((await parity.viaMcp(stranger.key, 'list_my_claims', {})).body.items.some((c: { id: number }) => c.id === made.id));
  t.is(await db()('claim_checks').where({ claim_id: made.id }).first(), undefined);
  t.is(await db()('claims').where({ user_id: stranger.userId }).first(), undefined);
});

test('claim_listing: an idempotency_key replays over MCP and REST, and refuses other arguments', async (t) => {
  const owner = await twin();
  const key = `claim-${randomBytes(4).toString('hex')}`;
  const first = await parity.viaMcp(owner.user.key, 'claim_listing', { slug: owner.slug, method: 'file', idempotency_key: key });
  t.false(first.error, JSON.stringify(first.body));
  t.deepEqual(
    (await parity.viaMcp(owner.user.key, 'claim_listing', { slug: owner.slug, method: 'file', idempotency_key: key })).body,
    first.body,
  );
  const overRest = await parity.viaRest(owner.user.key, 'claim_listing', { slug: owner.slug, method: 'file' }, { 'idempotency-key': key });
  t.is(overRest.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(overRest.body, first.body);
  t.like((await parity.viaMcp(owner.user.key, 'claim_listing', { slug: owner.slug, method: 'meta', idempotency_key: key })).body, {
    status: 422,
    code: 'idempotency_conflict',
  });
  t.is(Number((await db()('claims').where({ listing_id: owner.id }).count({ n: '*' }))[0].n), 1);
});
