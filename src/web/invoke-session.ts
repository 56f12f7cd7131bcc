import type { Context } from 'koa';
import type { z } from 'zod';
import { SCOPES } from '../auth/scopes.ts';
import type { SessionUser } from '../auth/sessions.ts';
import { siteForHost } from '../domain/sites/sites.ts';
import { invoke } from '../operations/invoke.ts';
import type { Operation } from '../operations/operation.ts';
import type { WebServices } from './web-services.ts';

/**
 * Runs an operation for the signed-in person, the same call an API client makes: the same input
 * schema, handler and errors (AppErrors, e.g. validation_failed with every field). A person in
 * the browser acts with every scope over their own things.
 */
export async function invokeAsSession<I extends z.ZodObject, O extends z.ZodType>(
  op: Operation<I, O>,
  input: Record<string, unknown>,
  ctx: Context,
  services: WebServices,
  user: SessionUser,
): Promise<z.output<O>> {
  const opCtx = {
    db: services.db,
    config: services.config,
    workflows: services.workflows,
    search: services.search,
    log: ctx.state.log,
    requestId: ctx.state.requestId,
    clientIp: ctx.ip,
    site: await siteForHost(services.db, ctx.host),
    principal: { userId: user.id, credentialId: `session:${user.id}`, scopes: SCOPES },
  };
  const result = await invoke(op as unknown as Operation, input, opCtx, { challenge: 'Session' });
  return result.body as z.output<O>;
}
