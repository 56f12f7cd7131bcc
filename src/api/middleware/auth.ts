import type { Context, Next } from 'koa';
import type { Authenticate } from '../../auth/credentials.ts';
import type { Principal } from '../../auth/scopes.ts';
import { principalFromHeader } from '../../auth/bearer.ts';

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
