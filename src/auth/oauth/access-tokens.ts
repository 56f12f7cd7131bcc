import type { JWTVerifyGetKey } from 'jose';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { SCOPES, type Principal, type Scope } from '../scopes.ts';
import { revokedGrants, type RevokedGrantsCache } from './grants.ts';
import { loadJose } from './jose.ts';
import { publicJwk, type OAuthKeys } from './keys.ts';

/**
 * Verifies our OAuth access tokens locally: signature (ES256, our keys), issuer, audience (the
 * identifier of the resource called, see resources.ts), expiry and type, then the in-memory set
 * of revoked grants. No query per call.
 */
export function accessTokenVerifier(db: Db, config: Config, keys: OAuthKeys, revoked: RevokedGrantsCache) {
  // Built at the first token, with jose (jose.ts).
  let jwks: JWTVerifyGetKey | undefined;
  return async function verifyAccessToken(token: string, audience: string): Promise<Principal | null> {
    const { createLocalJWKSet, jwtVerify } = await loadJose();
    jwks ??= createLocalJWKSet({ keys: keys.signing.map(publicJwk) as never });
    let payload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: config.baseUrl,
        audience,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        requiredClaims: ['sub', 'exp', 'gid'],
      }));
    } catch {
      return null;
    }
    const grantId = String(payload.gid);
    if ((await revokedGrants(db, revoked)).has(grantId)) return null;
    const userId = Number(payload.sub);
    if (!Number.isSafeInteger(userId) || userId <= 0) return null;
    const scopes = String(payload.scope ?? '')
      .split(' ')
      .filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
    return { userId, credentialId: `oauth:${grantId}`, scopes };
  };
}
