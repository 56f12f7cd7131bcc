import {
  authenticationOptions,
  listPasskeys,
  registerPasskey,
  registrationOptions,
  removePasskey,
  verifyPasskey,
  type Ceremony,
  type Passkey,
  type RelyingParty,
} from '../domain/staff/passkeys.ts';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { factorCounts, removeFactors } from '../domain/staff/factor-reset.ts';
import { markSessionFactor } from '../domain/staff/second-factor.ts';
import { forbidden } from '../errors/errors.ts';
import type { OperationContext } from './operation.ts';
import { sessionIdHashOf } from './second-factor.ts';

export { PASSKEY_NAME_MAX, type Passkey } from '../domain/staff/passkeys.ts';

/**
 * Passkeys for the factor pages, for the signed-in person of a web session (as
 * ./second-factor.ts): WebAuthn needs a browser, so there is no REST or MCP operation for them.
 */

type Ctx = Pick<OperationContext, 'db' | 'clock' | 'principal' | 'config'>;

/** Our host and origin as BASE_URL says (behind a proxy the request's own may differ). */
export function relyingParty(ctx: Pick<OperationContext, 'config'>): RelyingParty {
  const base = new URL(ctx.config.baseUrl);
  return { id: base.hostname, origin: base.origin, name: 'Listing Directory' };
}

function ceremony(ctx: Ctx): Ceremony {
  const sessionIdHash = sessionIdHashOf(ctx);
  if (!sessionIdHash) throw forbidden('staff_role_required', 'Passkeys work from a signed-in web session only.');
  return { db: ctx.db, rp: relyingParty(ctx), userId: ctx.principal!.userId, sessionIdHash, now: ctx.clock.now() };
}

export const passkeysOf = (ctx: Ctx): Promise<Passkey[]> => listPasskeys(ctx.db, ctx.principal!.userId);

export const passkeyRegistrationOptions = (ctx: Ctx, userName: string): Promise<PublicKeyCredentialCreationOptionsJSON> =>
  registrationOptions(ceremony(ctx), userName);

export const addPasskey = (ctx: Ctx, name: string, response: unknown): Promise<Passkey> => registerPasskey(ceremony(ctx), name, response);

export const deletePasskey = (ctx: Ctx, id: number): Promise<boolean> => removePasskey(ctx.db, ctx.principal!.userId, id);

export const passkeyAuthenticationOptions = (ctx: Ctx): Promise<PublicKeyCredentialRequestOptionsJSON | null> =>
  authenticationOptions(ceremony(ctx));

/** Verifies this session with a passkey's answer (the session's factor becomes `passkey`), or refuses. */
export async function verifySessionWithPasskey(ctx: Ctx, response: unknown): Promise<void> {
  const c = ceremony(ctx);
  await verifyPasskey(c, response);
  await markSessionFactor(ctx.db, c.sessionIdHash, 'passkey', c.now);
}

/** The person's own factors, all removed (the page lets only a verified session do it); the counts before. */
export async function removeOwnFactors(ctx: Ctx) {
  const userId = ctx.principal!.userId;
  return ctx.db.transaction(async (trx) => {
    const before = await factorCounts(trx, userId);
    await removeFactors(trx, userId);
    return before;
  });
}
