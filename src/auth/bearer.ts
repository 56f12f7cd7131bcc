import { unauthorized } from '../errors/errors.ts';
import type { Authenticate } from './credentials.ts';
import type { Principal } from './scopes.ts';

/** The token of an `Authorization: Bearer <token>` header; undefined for any other header. */
export function bearerToken(header: string): string | undefined {
  return /^Bearer[ ]+([^\s]+)\s*$/i.exec(header)?.[1];
}

/**
 * The caller named by an Authorization header (an API key, or an OAuth access token issued for the
 * resource `audience`), for REST and MCP alike: null without a header; 401 with the transport's
 * `challenge` for a malformed or dead one.
 */
export async function principalFromHeader(
  authenticate: Authenticate,
  header: string,
  audience: string,
  challenge: string,
): Promise<Principal | null> {
  if (!header) return null;
  const token = bearerToken(header);
  if (!token) throw unauthorized('The Authorization header must be "Bearer <token>".', `${challenge}, error="invalid_request"`);
  const principal = await authenticate(token, audience);
  if (!principal) throw unauthorized('The token is unknown, expired or revoked.', `${challenge}, error="invalid_token"`);
  return principal;
}
