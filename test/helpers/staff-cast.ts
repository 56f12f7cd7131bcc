import { randomBytes } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { grant, type StaffRole } from '../../src/domain/staff/roles.ts';
import type { Clock } from '../../src/domain/time/clock.ts';
import type { mcpParity } from './mcp-parity.ts';
import type { TestEnv } from './env.ts';

export const STAFF_PASSWORD = 'staff cast password';
export const unique = () => randomBytes(4).toString('hex');

/** A person with `roles` (on the site `site`, or every site when null) and a key with `scopes`. */
export async function staffPerson(env: TestEnv, clock: Clock, roles: StaffRole[], scopes: Scope[], site: string | null = 'main') {
  const db = env.services.db;
  const email = `staff-${unique()}@example.com`;
  const user = await createVerifiedUser(db, email, STAFF_PASSWORD);
  const on = site === null ? null : (await db('sites').where({ key: site }).first('id'))!.id;
  for (const role of roles) await grant(db, { userId: user.id, role, siteId: on, by: null, now: clock.now() });
  const { key } = await createApiKey(db, user.id, 'staff test', scopes);
  return { userId: user.id, email, key };
}

/**
 * The same call over REST and MCP: both answer `status` (and `code` when refused). A token
 * without the tool's scope is refused at the HTTP level, which the MCP client raises as
 * InsufficientScopeError.
 */
export async function bothTransports(
  t: ExecutionContext,
  parity: ReturnType<typeof mcpParity>,
  key: string,
  name: string,
  args: Record<string, unknown>,
  status: number,
  code?: string,
) {
  const rest = await parity.viaRest(key, name, args);
  t.is(rest.status, status, `${name} over REST: ${rest.text}`);
  if (code) t.is(rest.body.code, code, `${name} over REST`);
  let mcp: { error: boolean; body: any };
  try {
    mcp = await parity.viaMcp(key, name, args);
  } catch (err) {
    if ((err as Error).constructor.name !== 'InsufficientScopeError') throw err;
    mcp = { error: true, body: { status: 403, code: 'insufficient_scope' } };
  }
  t.is(mcp.error, status >= 400, `${name} over MCP: ${JSON.stringify(mcp.body)}`);
  if (code) t.like(mcp.body, { status, code }, `${name} over MCP`);
  return { rest, mcp };
}
