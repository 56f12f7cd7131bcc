import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { STAFF_SCOPES } from '../../src/auth/scopes.ts';
import { markSessionFactor } from '../../src/domain/staff/second-factor.ts';
import { grant, revoke, ROLE_SCOPES, STAFF_ROLES, type StaffRole } from '../../src/domain/staff/roles.ts';
import { operations } from '../../src/operations/index.ts';
import { operationSchemas } from '../../src/operations/json-schema.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';

/**
 * The role × action matrix of the site team's console, written out by hand so that a new staff
 * operation, or a role given more than it should, fails here: every staff operation, called over
 * REST and MCP by each role with every scope that role's keys may carry, by a person whose role was
 * revoked after their key was made, and by an admin of another site; and every console page opened
 * by each role with a verified second factor.
 */

type Who = StaffRole | 'revoked' | 'otherSite';

/** Who may do what. The inputs are valid but name nothing that exists where a target is needed. */
const MATRIX: Record<string, { roles: StaffRole[]; args: Record<string, unknown> }> = {
  staff_search_orders: { roles: ['admin', 'support'], args: {} },
  staff_get_order: { roles: ['admin', 'support'], args: { number: 'LD-MISSING' } },
  staff_refund_order_line: { roles: ['admin', 'support'], args: { number: 'LD-MISSING', reason: 'matrix' } },
  staff_replay_order: { roles: ['admin', 'support'], args: { number: 'LD-MISSING' } },
  staff_list_claims: { roles: ['admin', 'support'], args: {} },
  staff_get_claim: { roles: ['admin', 'support'], args: { claim_id: 99_999_999 } },
  staff_recheck_claim: { roles: ['admin', 'support'], args: { claim_id: 99_999_999 } },
  staff_decide_claim: { roles: ['admin', 'support'], args: { claim_id: 99_999_999, decision: 'reject', reason: 'matrix' } },
  staff_list_stuck_flows: { roles: ['admin', 'support'], args: {} },
  staff_retry_flow: { roles: ['admin', 'support'], args: { kind: 'order', ref: 'LD-MISSING' } },
  staff_list_webhook_health: { roles: ['admin', 'support'], args: {} },
  staff_get_webhook_endpoint: { roles: ['admin', 'support'], args: { endpoint_id: 99_999_999 } },
  staff_list_listing_edits: { roles: ['admin', 'moderator'], args: {} },
  staff_revert_listing_edit: { roles: ['admin', 'moderator'], args: { id: 99_999_999 } },
  staff_find_listings: { roles: ['admin', 'moderator'], args: {} },
  staff_unlist_listing: { roles: ['admin', 'moderator'], args: { listing: 'no-such-listing', reason: 'matrix' } },
  staff_restore_listing: { roles: ['admin', 'moderator'], args: { listing: 'no-such-listing', reason: 'matrix' } },
  staff_list_vote_flags: { roles: ['admin', 'moderator'], args: {} },
  staff_decide_vote_flag: { roles: ['admin', 'moderator'], args: { id: 99_999_999, decision: 'keep' } },
  staff_list_comment_queue: { roles: ['admin', 'moderator'], args: {} },
  staff_moderate_comment: { roles: ['admin', 'moderator'], args: { comment_id: 99_999_999, action: 'approve' } },
  staff_list_products: { roles: ['admin'], args: {} },
  staff_set_product_price: { roles: ['admin'], args: { product: 'no-such-product', price_cents: 100 } },
  staff_set_product_active: { roles: ['admin'], args: { product: 'no-such-product', active: false } },
  staff_list_promo_codes: { roles: ['admin'], args: {} },
  staff_create_promo_code: { roles: ['admin'], args: { code: 'MATRIX', percent: 10 } },
  staff_disable_promo_code: { roles: ['admin'], args: { code: 'NO-SUCH-CODE' } },
  staff_get_catalogue_settings: { roles: ['admin'], args: {} },
  staff_set_catalogue_settings: { roles: ['admin'], args: {} },
  staff_list_roles: { roles: ['admin'], args: {} },
  staff_reset_second_factor: { roles: ['admin'], args: { user_id: 99_999_999 } },
  staff_grant_role: { roles: ['admin'], args: { email: 'nobody-matrix@example.com', role: 'support' } },
  staff_revoke_role: { roles: ['admin'], args: { email: 'nobody-matrix@example.com', role: 'support' } },
  staff_list_audit: { roles: ['admin'], args: {} },
  staff_export_audit: { roles: ['admin'], args: { format: 'json' } },
};

/** Console pages and the roles that open them (everyone else: the 403 page). */
const PAGES: Record<string, StaffRole[]> = {
  '/staff': ['admin', 'support', 'moderator'],
  '/staff/orders': ['admin', 'support'],
  '/staff/claims': ['admin', 'support'],
  '/staff/flows': ['admin', 'support'],
  '/staff/webhooks': ['admin', 'support'],
  '/staff/roles': ['admin'],
  '/staff/catalogue': ['admin'],
  '/staff/moderation': ['admin', 'moderator'],
  '/staff/audit': ['admin'],
};

let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
const cast = {} as Record<Who, { userId: number; email: string; key: string }>;
const PASSWORD = 'staff matrix password';

test.before(async () => {
  env = await startTestEnv(import.meta.url, {});
  parity = mcpParity(env);
  const db = env.services.db;
  const siteId = async (key: string) => (await db('sites').where({ key }).first('id'))!.id;
  const main = await siteId('main');
  const person = async (role: StaffRole, site: number | null) => {
    const email = `matrix-${randomBytes(4).toString('hex')}@example.com`;
    const user = await createVerifiedUser(db, email, PASSWORD);
    await grant(db, { userId: user.id, role, siteId: site, by: null, now: new Date() });
    const { key } = await createApiKey(db, user.id, 'matrix', [...ROLE_SCOPES[role]]);
    return { userId: user.id, email, key };
  };
  for (const role of STAFF_ROLES) cast[role] = await person(role, main);
  cast.otherSite = await person('admin', await siteId('makers'));
  cast.revoked = await person('admin', main);
  await revoke(db, { userId: cast.revoked.userId, role: 'admin', siteId: main, by: null, now: new Date() });
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

test('every staff operation is in the matrix, and its scope is one only its roles’ keys may carry', (t) => {
  const staffOps = operations.filter((o) => o.tags.includes('staff'));
  t.deepEqual(staffOps.map((o) => o.name).sort(), Object.keys(MATRIX).sort());
  for (const op of staffOps) {
    t.true((STAFF_SCOPES as readonly string[]).includes(op.scope ?? ''), `${op.name} has a staff scope`);
    const carriers = STAFF_ROLES.filter((r) => ROLE_SCOPES[r].includes(op.scope as never));
    t.deepEqual(carriers, MATRIX[op.name]!.roles, `${op.name}: the roles whose keys carry ${op.scope}`);
  }
});

/** A refusal or not, over both transports; MCP refuses a missing scope at the HTTP level. */
async function call(who: Who, name: string, args: Record<string, unknown>) {
  const rest = await parity.viaRest(cast[who].key, name, args);
  let mcp: { status: number; code: string | undefined };
  try {
    const r = await parity.viaMcp(cast[who].key, name, args);
    mcp = r.error ? { status: r.body.status, code: r.body.code } : { status: 200, code: undefined };
  } catch (err) {
    if ((err as Error).constructor.name !== 'InsufficientScopeError') throw err;
    mcp = { status: 403, code: 'insufficient_scope' };
  }
  return { rest: { status: rest.status, code: rest.body?.code as string | undefined }, mcp };
}

for (const [name, { roles, args }] of Object.entries(MATRIX)) {
  test(`${name}: ${roles.join(' and ')} may; other roles, a revoked role and another site's admin may not`, async (t) => {
    for (const who of [...STAFF_ROLES, 'revoked', 'otherSite'] as const) {
      const { rest, mcp } = await call(who, name, args);
      for (const [transport, got] of [
        ['REST', rest],
        ['MCP', mcp],
      ] as const) {
        const label = `${who} → ${name} over ${transport}: ${got.status} ${got.code ?? ''}`;
        if (who === 'otherSite') t.like(got, { status: 404, code: 'not_found' }, label);
        else if (who === 'revoked') t.like(got, { status: 403, code: 'staff_role_required' }, label);
        else if (roles.includes(who)) t.false(got.status === 403 || got.status === 401, label);
        else t.like(got, { status: 403, code: 'insufficient_scope' }, label);
      }
    }
  });
}

test('each console page opens for its roles only; the others get the page saying it is not for them', async (t) => {
  for (const who of STAFF_ROLES) {
    const web = new WebClient(env.baseUrl);
    await web.signIn(cast[who].email, PASSWORD);
    const sessions = await env.services.db('web_sessions').where({ user_id: cast[who].userId }).pluck('id_hash');
    for (const id of sessions) await markSessionFactor(env.services.db, id, 'totp', new Date());
    for (const [path, roles] of Object.entries(PAGES)) {
      const page = await web.get(path);
      t.is(page.status, roles.includes(who) ? 200 : 403, `${who} opens ${path}`);
      if (page.status === 403) t.regex(page.$('main').text(), /This part of the console is for .+; your role here is /);
    }
  }
});

/** Every property name anywhere in a JSON Schema. */
function propertyNames(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const own = Object.keys((schema as { properties?: object }).properties ?? {});
  return [...own, ...Object.values(schema).flatMap(propertyNames)];
}

test('no staff operation answers with a password hash, an API key, a webhook secret or a session', (t) => {
  for (const op of operations.filter((o) => o.tags.includes('staff'))) {
    const names = propertyNames(operationSchemas(op).output);
    t.deepEqual(
      names.filter((n) =>
        /password|secret|hash|session_?id|token|api_?key|key_prefix|^totp_|recovery_code$|public_key|credential_id/i.test(n),
      ),
      [],
      `${op.name} answers only what support needs`,
    );
  }
});
