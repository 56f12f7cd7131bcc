import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { authenticateApiKey, looksLikeApiKey } from './api-keys.ts';
import { accessTokenVerifier } from './oauth/access-tokens.ts';
import type { OAuthKeys } from './oauth/keys.ts';
import type { Principal } from './scopes.ts';

/** Resolves a Bearer token (API key or OAuth access token) to its principal; null when not live. */
export type Authenticate = (token: string) => Promise<Principal | null>;

export function createAuthenticator(db: Db, config: Config, keys: OAuthKeys): Authenticate {
  const verifyAccessToken = accessTokenVerifier(db, config, keys);
  return (token) => (looksLikeApiKey(token) ? authenticateApiKey(db, token) : verifyAccessToken(token));
}
