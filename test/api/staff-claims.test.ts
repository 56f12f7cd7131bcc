import { randomBytes } from 'node:crypto';
import test from 'ava';
import { staffPerson } from '../helpers/staff-cast.ts';
import { systemClock } from '../../src/domain/time/clock.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { revoke, type StaffRole } from '../../src/domain/staff/roles.ts';
import { startTestDns, type TestDns } from '../helpers/dns-server.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { mailsTo } from '../helpers/web.ts';
import { workflowResult } from '../helpers/workflows.ts';

/**
 * The site team's claim operations over REST and MCP, role by role (admin, support; a moderator,
 * no role, a revoked role and staff of another site refused), their refusals in words, the audit
 * rows, and what the claimant sees of a decision: the mail and their claim's `decision`.
 */

let env: TestEnv;
let dns: TestDns;
let parity: ReturnType<typeof mcpParity>;
test.before(async () => {
  dns = await startTestDns();
  // Scheduled checks far apart: the tests drive checks themselves.
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
const person = (roles: StaffRole[], scopes: Scope[], site: string | null = 'main') => staffPerson(env, systemClock, roles, scopes, site);
const unique = () => randomBytes(4).toString('hex');
const siteId = async (key: string) => (await db()('sites').where({ key }).first('id'))!.id;

type Actor = Awaited<ReturnType<typeof person>>;
let cast: Record<'admin' | 'support' | 'moderator' | 'nonStaff' | 'revoked' | 'otherSite', Actor>;
test.serial.before(async () => {
  cast = {
    admin: await person(['admin'], ['staff:claims'], null),
    support: await person(['support'], ['staff:claims']),
    moderator: await person(['moderator'], ['staff:listings']),
    nonStaff: await person([], ['account:read']),
    revoked: await person(['support'], ['staff:claims']),
    otherSite: await person(['admin'], ['staff:claims'], 'makers'),
  };
  await revoke(db(), { userId: cast.revoked.userId, role: 'support', siteId: await siteId('main'), by: null, now: new Date() });
});

/** A pending dns claim by a new account on a live listing of its own company (owned by `ownerId`). */
async function pendingClaim(ownerId?: number) {
  const claimant = await env.user();
  const tag = `sc${unique()}`;
  const listing = await insertLiveListing(db(), { name: `Claimed ${tag}`, url: `https://${tag}.com/`, ownerId });
  const { slug } = (await db()('listings').where({ id: listing }).first('slug'))!;
  const made = await api(env, 'POST', '/claims', { key: claimant.key, body: { slug, method: 'dns' } });
  if (made.status !== 201) throw new Error(JSON.stringify(made.body));
  return { id: made.body.id as number, listing, slug, claimant, host: `${tag}.com`, record: made.body.instructions.record };
}

async function mcpCall(key: string, name: string, args: Record<string, unknown>) {
  try {
    return await parity.viaMcp(key, name, args);
  } catch (err) {
    if ((err as Error).constructor.name !== 'InsufficientScopeError') throw err;
    return { error: true, body: { status: 403, code: 'insufficient_scope' } };
  }
}

/** The call over REST, and over MCP too when `mcp` (a decision is made once). */
async function call(
  t: any,
  who: keyof typeof cast,
  name: string,
  args: Record<string, unknown>,
  status: number,
  code?: string,
  mcp = true,
) {
  const rest = await parity.viaRest(cast[who].key, name, args);
  t.is(rest.status, status, `${who} ${name} over REST: ${rest.text}`);
  if (code) t.is(rest.body.code, code, `${who} ${name} over REST`);
  if (!mcp) return rest;
  const viaMcp = await mcpCall(cast[who].key, name, args);
  t.is(viaMcp.error, status >= 400, `${who} ${name} over MCP: ${JSON.stringify(viaMcp.body)}`);
  if (code) t.like(viaMcp.body, { status, code }, `${who} ${name} over MCP`);
  return rest;
}

const REFUSED = [
  ['moderator', 403, 'insufficient_scope'],
  ['nonStaff', 403, 'insufficient_scope'],
  ['revoked', 403, 'staff_role_required'],
  ['otherSite', 404, 'not_found'],
] as const;

test.serial(
  'staff_list_claims: admin and support list this site’s claims by status, newest first, with the claimant and the last check',
  async (t) => {
    const older = await pendingClaim();
    const newer = await pendingClaim();
    for (const who of ['admin', 'support'] as const) {
      const res = await call(t, who, 'staff_list_claims', { status: 'pending', per_page: 100 }, 200);
      const ids = res.body.items.map((c: { id: number }) => c.id);
      t.true(ids.indexOf(newer.id) < ids.indexOf(older.id) && ids.indexOf(older.id) >= 0, 'newest first');
      t.like(
        res.body.items.find((c: { id: number }) => c.id === newer.id),
        {
          status: 'pending',
          method: 'dns',
          listing_id: newer.listing,
          claimant_email: newer.claimant.email,
          last_check: null,
          decision: null,
        },
      );
      t.true(res.body.items.every((c: { status: string }) => c.status === 'pending'));
    }
    const verified = await parity.viaRest(cast.support.key, 'staff_list_claims', { status: 'verified', per_page: 100 });
    t.false(verified.body.items.some((c: { id: number }) => c.id === newer.id));
    for (const [who, status, code] of REFUSED) await call(t, who, 'staff_list_claims', {}, status, code);
    const bad = await parity.viaRest(cast.support.key, 'staff_list_claims', { status: 'lost' });
    t.is(bad.status, 400);
    t.is(bad.body.errors[0].path, 'status');
  },
);

test.serial('staff_recheck_claim and staff_get_claim: a check now, then every check in words; both audited', async (t) => {
  const claim = await pendingClaim();
  for (const [who, status, code] of REFUSED) await call(t, who, 'staff_recheck_claim', { claim_id: claim.id }, status, code, false);
  dns.zone.set(`_listing-directory-challenge.${claim.host}`, { txt: [['listing-directory-verification=ldv_not_this_one']] });
  const rechecked = await call(t, 'support', 'staff_recheck_claim', { claim_id: claim.id }, 200, undefined, false);
  t.like(rechecked.body, { id: claim.id, status: 'pending', last_check: { result: 'not_found' } });

  for (const who of ['admin', 'support'] as const) {
    const res = await call(t, who, 'staff_get_claim', { claim_id: claim.id }, 200);
    t.like(res.body, { id: claim.id, claimant_email: claim.claimant.email, workflow_id: `claim:${claim.id}`, decision: null });
    t.like(res.body.checks, [{ trigger: 'request', result: 'not_found', result_words: 'Proof not found' }]);
    t.regex(res.body.checks[0].detail, /ldv_not_this_one/);
    t.regex(res.body.looks_for, new RegExp(`_listing-directory-challenge\\.${claim.host}`));
  }
  for (const [who, status, code] of REFUSED) await call(t, who, 'staff_get_claim', { claim_id: claim.id }, status, code);
  await call(t, 'support', 'staff_get_claim', { claim_id: 2_000_000_000 }, 404, 'not_found');

  const recheckRow = await db()('staff_audit')
    .where({ operation: 'staff_recheck_claim', target_id: String(claim.id) })
    .first();
  t.like(recheckRow, {
    user_id: cast.support.userId,
    role: 'support',
    target_kind: 'claim',
    before: { status: 'pending', last_check: null },
  });
  t.like(recheckRow!.after, { status: 'pending', last_check: { result: 'not_found' } });
  // admin and support, each over REST and MCP
  t.is((await db()('staff_audit').where({ operation: 'staff_get_claim', target_id: String(claim.id) })).length, 4);
});

test.serial(
  'staff_decide_claim approve: the claimant owns the listing as by a proof, is mailed the reason and reads it on their claim',
  async (t) => {
    const previousOwner = await env.user();
    const claim = await pendingClaim(previousOwner.userId);
    const rival = await pendingClaim(); // another listing: untouched
    const args = { claim_id: claim.id, decision: 'approve', reason: 'The founder showed us the company register entry.' };
    for (const [who, status, code] of REFUSED) await call(t, who, 'staff_decide_claim', args, status, code, false);

    const res = await call(t, 'support', 'staff_decide_claim', args, 200, undefined, false);
    t.like(res.body, { id: claim.id, status: 'verified', decision: { outcome: 'approved', reason: args.reason } });
    t.is((await db()('listings').where({ id: claim.listing }).first('owner_id'))!.owner_id, claim.claimant.userId);
    const history = await db()('listing_versions').where({ listing_id: claim.listing, operation: 'claim_verified' });
    t.is(history.length, 1, 'recorded in the listing’s history as a verified claim is');
    t.like(await db()('claim_checks').where({ claim_id: claim.id }).orderBy('id', 'desc').first(), { trigger: 'staff', result: 'found' });
    t.is(await workflowResult(env, `claim:${claim.id}`), 'verified');

    // The claimant: their claim carries the reason, and a mail says it.
    const mine = await api(env, 'GET', '/claims', { key: claim.claimant.key });
    t.like(
      mine.body.items.find((c: { id: number }) => c.id === claim.id),
      { status: 'verified', decision: { outcome: 'approved', reason: args.reason } },
    );
    const mails = await mailsTo(db(), claim.claimant.email);
    const decisionMail = mails.find((m) => m.subject.includes('was approved'));
    t.truthy(decisionMail);
    t.true(decisionMail!.body_text.includes(args.reason));
    t.true((await mailsTo(db(), previousOwner.email)).some((m) => m.subject.includes('has a new owner')));

    const row = await db()('staff_audit')
      .where({ operation: 'staff_decide_claim', target_id: String(claim.id) })
      .first();
    t.like(row, { user_id: cast.support.userId, role: 'support', target_kind: 'claim' });
    t.deepEqual(row!.before, { status: 'pending', owner_id: previousOwner.userId, decision: null });
    t.deepEqual(row!.after, { status: 'verified', owner_id: claim.claimant.userId, decision: 'approved' });
    t.is((await db()('claims').where({ id: rival.id }).first('status'))!.status, 'pending');

    // Deciding it again: a 409 whose code says why, on both transports.
    await call(t, 'admin', 'staff_decide_claim', args, 409, 'claim_already_verified');
    await call(t, 'admin', 'staff_decide_claim', { ...args, decision: 'reject' }, 409, 'claim_already_verified');
  },
);

test.serial('staff_decide_claim reject: the claim is rejected, its workflow ends, and the claimant reads why', async (t) => {
  const claim = await pendingClaim();
  const reason = 'The address you gave is not at the company’s domain.';
  const viaMcp = await parity.viaMcp(cast.admin.key, 'staff_decide_claim', { claim_id: claim.id, decision: 'reject', reason });
  t.false(viaMcp.error, JSON.stringify(viaMcp.body));
  t.like(viaMcp.body, { status: 'rejected', decision: { outcome: 'rejected', reason } });
  t.is(await workflowResult(env, `claim:${claim.id}`), 'rejected');
  t.is((await db()('listings').where({ id: claim.listing }).first('owner_id'))!.owner_id, null);
  const mine = await api(env, 'GET', '/claims', { key: claim.claimant.key });
  t.like(
    mine.body.items.find((c: { id: number }) => c.id === claim.id),
    { status: 'rejected', decision: { outcome: 'rejected', reason } },
  );
  t.true((await mailsTo(db(), claim.claimant.email)).some((m) => m.subject.includes('was rejected') && m.body_text.includes(reason)));
  await call(t, 'support', 'staff_decide_claim', { claim_id: claim.id, decision: 'approve', reason: 'x' }, 409, 'claim_not_pending');
  await call(t, 'support', 'staff_recheck_claim', { claim_id: claim.id }, 409, 'claim_not_pending', false);
});

test.serial(
  'staff_decide_claim refuses bad input in words: unknown claim 404, reason missing or too long 422, a bad decision 400',
  async (t) => {
    const claim = await pendingClaim();
    await call(t, 'support', 'staff_decide_claim', { claim_id: 2_000_000_000, decision: 'approve', reason: 'fine' }, 404, 'not_found');
    for (const reason of [undefined, '   ', 'x'.repeat(1001)]) {
      const res = await call(
        t,
        'support',
        'staff_decide_claim',
        { claim_id: claim.id, decision: 'approve', reason },
        422,
        'decision_reason_invalid',
      );
      t.is(res.body.errors[0].path, 'reason');
      t.regex(res.body.detail, /Say why|Keep the reason to 1000 characters/);
    }
    const bad = await parity.viaRest(cast.support.key, 'staff_decide_claim', { claim_id: claim.id, decision: 'maybe', reason: 'r' });
    t.is(bad.status, 400);
    t.is((await db()('claims').where({ id: claim.id }).first('status'))!.status, 'pending', 'nothing was decided');
    t.is(
      await db()('staff_audit')
        .where({ operation: 'staff_decide_claim', target_id: String(claim.id) })
        .first(),
      undefined,
    );
  },
);
