import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { authenticateApiKey, looksLikeApiKey, type ApiKeyCache } from './api-keys.ts';
import { accessTokenVerifier } from './oauth/access-tokens.ts';
import type { RevokedGrantsCache } from './oauth/grants.ts';
import type { OAuthKeys } from './oauth/keys.ts';
import type { Principal } from './scopes.ts';

/**
 * Resolves a Bearer token to its principal at the resource `audience` ({base}/mcp or
 * {base}/api/v1); null when not live. API keys are valid at every resource, OAuth access
 * tokens only at the one they were issued for.
 */
export type Authenticate = (token: string, audience: string) => Promise<Principal | null>;

export function createAuthenticator(
  db: Db,
  config: Config,
  keys: OAuthKeys,
  caches: { apiKeys: ApiKeyCache; revokedGrants: RevokedGrantsCache },
): Authenticate {
  const verifyAccessToken = accessTokenVerifier(db, config, keys, caches.revokedGrants);
  return (token, audience) => (looksLikeApiKey(token) ? authenticateApiKey(db, caches.apiKeys, token) : verifyAccessToken(token, audience));
}
