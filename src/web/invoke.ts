import type { Context } from 'koa';
import type { z } from 'zod';
import { invokeAs, sessionPrincipal } from '../operations/invoke.ts';
import type { Operation } from '../operations/operation.ts';
import { operationSchemas as operationSchemasOf } from '../operations/json-schema.ts';
import { currentSession } from './session.ts';
import type { WebServices } from './web-services.ts';

/**
 * Runs an operation of the registry as this request's signed-in person (the route is behind
 * requireUser): a form and the API call of the same operation are the same call. Refusals are
 * AppErrors with field paths, for refusal() / formMessages() to put beside the fields.
 */
export async function invokeForPage<I extends z.ZodObject, O extends z.ZodType>(
  ctx: Context,
  services: WebServices,
  op: Operation<I, O>,
  input: z.input<I>,
): Promise<z.output<O>> {
  const session = await currentSession(ctx, services);
  if (!session) throw new Error('invokeForPage() on a route without requireUser()');
  const principal = sessionPrincipal(session.user.id, session.idHash);
  return invokeAs(op, input, principal, services, { log: ctx.state.log, requestId: ctx.state.requestId, host: ctx.host });
}

/** The `maxLength` an operation's input schema gives a field: the form's `maxlength`, from the same rule. */
export function maxLengthOf(op: Operation, field: string): number | undefined {
  const schema = operationSchemasOf(op).input.properties?.[field];
  const max = (schema?.maxLength ?? (schema?.anyOf as { maxLength?: number }[] | undefined)?.find((s) => s.maxLength)?.maxLength) as
    number | undefined;
  return typeof max === 'number' ? max : undefined;
}
