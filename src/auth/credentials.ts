import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { authenticateApiKey, looksLikeApiKey } from './api-keys.ts';
import { accessTokenVerifier } from './oauth/access-tokens.ts';
import type { OAuthKeys } from './oauth/keys.ts';
import type { Principal } from './scopes.ts';

/**
 * Resolves a Bearer token to its principal at the resource `audience` ({base}/mcp or
 * {base}/api/v1); null when not live. API keys are valid at every resource, OAuth access
 * tokens only at the one they were issued for.
 */
export type Authenticate = (token: string, audience: string) => Promise<Principal | null>;

export function createAuthenticator(db: Db, config: Config, keys: OAuthKeys): Authenticate {
  const verifyAccessToken = accessTokenVerifier(db, config, keys);
  return (token, audience) => (looksLikeApiKey(token) ? authenticateApiKey(db, token) : verifyAccessToken(token, audience));
}
