import type { Context, Next } from 'koa';
import type { Authenticate } from '../../auth/credentials.ts';
import type { Principal } from '../../auth/scopes.ts';
import { unauthorized } from '../../errors.ts';

declare module 'koa' {
  interface DefaultState {
    principal: Principal | null;
  }
}

/** Challenge sent with every 401 of the REST API. */
export const REST_CHALLENGE = 'Bearer realm="api"';

/**
 * Resolves `Authorization: Bearer <API key or access token>` to a principal. No header → anonymous (public
 * operations work); a header that does not name a live credential for `audience` → 401 at once.
 */
export function bearerAuth(authenticate: Authenticate, audience: string, challenge = REST_CHALLENGE) {
  return async function resolvePrincipal(ctx: Context, next: Next) {
    ctx.state.principal = await principalFromHeader(authenticate, ctx.get('Authorization'), audience, challenge);
    await next();
  };
}

/** The caller named by an Authorization header at the resource `audience`; null without one; 401 for a bad one. */
export async function principalFromHeader(
  authenticate: Authenticate,
  header: string,
  audience: string,
  challenge: string,
): Promise<Principal | null> {
  if (!header) return null;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <token>".', `${challenge}, error="invalid_request"`);
  const principal = await authenticate(match[1]!, audience);
  if (!principal) throw unauthorized('The token is unknown, expired or revoked.', `${challenge}, error="invalid_token"`);
  return principal;
}
