import { randomBytes } from 'node:crypto';
import type { ExecutionContext } from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { markSessionFactor } from '../../src/domain/staff/second-factor.ts';
import { grant, type StaffRole } from '../../src/domain/staff/roles.ts';
import type { Clock } from '../../src/domain/time/clock.ts';
import type { mcpParity } from './mcp-parity.ts';
import type { TestEnv } from './env.ts';

export const STAFF_PASSWORD = 'staff cast password';
export const unique = () => randomBytes(4).toString('hex');

/** A person who signs in with STAFF_PASSWORD, with `roles` on the site `site` (every site when null). */
export async function consolePerson(env: TestEnv, clock: Clock, roles: StaffRole[], site: string | null = 'main') {
  const db = env.services.db;
  const email = `staff-${unique()}@example.com`;
  const user = await createVerifiedUser(db, email, STAFF_PASSWORD);
  const on = site === null ? null : (await db('sites').where({ key: site }).first('id'))!.id;
  for (const role of roles) await grant(db, { userId: user.id, role, siteId: on, by: null, now: clock.now() });
  return { userId: user.id, email };
}

/** A console person (above) with a key carrying `scopes` (refused unless their roles allow them). */
export async function staffPerson(env: TestEnv, clock: Clock, roles: StaffRole[], scopes: Scope[], site: string | null = 'main') {
  const person = await consolePerson(env, clock, roles, site);
  const { key } = await createApiKey(env.services.db, person.userId, 'staff test', scopes);
  return { ...person, key };
}

/**
 * The person's sessions count as verified with a second factor now (the factors themselves, TOTP,
 * recovery codes and passkeys, are tested in second-factor.test.ts and passkeys.test.ts).
 */
export async function verifyFactor(env: TestEnv, clock: Clock, userId: number): Promise<void> {
  const db = env.services.db;
  for (const id of await db('web_sessions').where({ user_id: userId }).pluck('id_hash')) {
    await markSessionFactor(db, id, 'totp', clock.now());
  }
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
