import { invalidField } from '../errors/errors.ts';
import { jsonText } from '../cache/shared-json.ts';
import { readJsonObject } from './json-body.ts';
import { idempotencyKey } from '../operations/idempotency-key.ts';
import { invoke } from '../operations/invoke.ts';
import { operationContext } from '../operations/context.ts';
import { bodyLimitOf, type Operation } from '../operations/operation.ts';
import type { Services } from '../services.ts';
import { REST_CHALLENGE } from './middleware/auth.ts';
import type { RouteContext, RouteScope } from '../http/router.ts';
import { paths } from '../lib/paths.ts';
import { hasBody, operationSchemas, pathParams, type JsonSchema } from '../operations/json-schema.ts';

/** One route per operation under /api/v1, in registry order, added to the API's scope. */
export function restRoutes(routes: RouteScope, operations: readonly Operation[], services: Services): void {
  for (const op of operations) {
    // Made at the operation's first request: the JSON Schema of every operation's input is
    // milliseconds each, which a process that calls few operations (a test file) need not pay.
    let shape: { names: string[]; properties: Record<string, JsonSchema> } | undefined;
    routes.add(op.method, paths.apiRoute(op.path), async function runOperation(ctx) {
      ctx.state.operation = op.name; // every line the operation logs names it, next to the request id
      shape ??= { names: pathParams(op.path), properties: operationSchemas(op).input.properties ?? {} };
      const input = await restInput(op, shape, ctx);
      const opCtx = await operationContext(services, {
        get log() {
          return ctx.state.log; // made only if the operation logs
        },
        requestId: ctx.state.requestId,
        host: ctx.host,
        principal: ctx.state.principal,
        clientIp: ctx.ip,
      });
      // The raw header, not ctx.get (which answers '' for an absent one): an empty key is a 400, not no key.
      const key = op.idempotent ? idempotencyKey(ctx.req.headers['idempotency-key'], 'Idempotency-Key') : undefined;
      const result = await invoke(op, input, opCtx, { idempotencyKey: key, challenge: REST_CHALLENGE });
      if (result.replayed) ctx.set('Idempotent-Replayed', 'true');
      ctx.status = result.status;
      if (result.body !== null && typeof result.body === 'object') {
        ctx.type = 'json';
        ctx.body = jsonText(result.body); // written once for a shared answer, as Koa would write it
      } else ctx.body = result.body;
    });
  }
}

/** Path parameters, then the query (GET/DELETE) or the JSON body; path values win. */
async function restInput(
  op: Operation,
  { names, properties }: { names: string[]; properties: Record<string, JsonSchema> },
  ctx: RouteContext,
): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  for (const name of names) params[name] = fromString(ctx.params[name], properties[name]);
  if (!hasBody(op)) {
    const query: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(ctx.query)) {
      if (name in params || !(name in properties)) continue;
      if (Array.isArray(value)) throw invalidField(name, 'Given more than once', `Query parameter "${name}" was given more than once.`);
      query[name] = fromString(value, properties[name]);
    }
    return { ...query, ...params };
  }
  return { ...(await readJsonObject(ctx, bodyLimitOf(op))), ...params };
}

/** Query and path values arrive as strings; numbers and booleans are converted only when well-formed. */
function fromString(value: string | undefined, schema: JsonSchema | undefined): unknown {
  if (value === undefined || !schema) return value;
  const type = schema.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}
