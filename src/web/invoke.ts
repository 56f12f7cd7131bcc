import type { Context } from 'koa';
import type { z } from 'zod';
import { operationContext } from '../operations/context.ts';
import { invoke, sessionPrincipal } from '../operations/invoke.ts';
import type { Operation, OperationContext } from '../operations/operation.ts';
import { operationSchemas as operationSchemasOf } from '../operations/json-schema.ts';
import { currentSession } from './session.ts';
import type { WebServices } from './web-services.ts';

/**
 * The context operations and read models run with for this request, as for an API call: the
 * site of its host, and the signed-in person as the principal (null for a visitor). Built once
 * per request.
 */
export function pageContext(ctx: Context, services: WebServices): Promise<OperationContext> {
  ctx.state.pageContext ??= buildPageContext(ctx, services);
  return ctx.state.pageContext as Promise<OperationContext>;
}

async function buildPageContext(ctx: Context, services: WebServices): Promise<OperationContext> {
  const session = await currentSession(ctx, services);
  return operationContext(services, {
    get log() {
      return ctx.state.log; // made on first use (src/api/middleware/request-context.ts)
    },
    requestId: ctx.state.requestId,
    host: ctx.host,
    clientIp: ctx.ip,
    principal: session ? sessionPrincipal(session.user.id, session.idHash) : null,
  });
}

/**
 * Runs an operation of the registry for this request's person: a form and the API call of the
 * same operation are the same call (scope, input schema, handler, errors). Refusals are AppErrors
 * with field paths, for refusal() / formMessages() to put beside the fields. A scoped operation
 * needs a route behind requireUser(); without a session it is refused like an API call without a key.
 * An idempotent operation given `idempotencyKey` (a form's one-time key) runs once per key and session.
 */
export async function invokeForPage<I extends z.ZodObject, O extends z.ZodType>(
  ctx: Context,
  services: WebServices,
  op: Operation<I, O>,
  input: z.input<I>,
  options: { idempotencyKey?: string } = {},
): Promise<z.output<O>> {
  const result = await invoke(op as unknown as Operation, input, await pageContext(ctx, services), { challenge: 'Session', ...options });
  return result.body as z.output<O>;
}

/** The `maxLength` an operation's input schema gives a field: the form's `maxlength`, from the same rule. */
export function maxLengthOf(op: Operation, field: string): number | undefined {
  const schema = operationSchemasOf(op).input.properties?.[field];
  const max = (schema?.maxLength ?? (schema?.anyOf as { maxLength?: number }[] | undefined)?.find((s) => s.maxLength)?.maxLength) as
    | number
    | undefined;
  return typeof max === 'number' ? max : undefined;
}
