import type { z } from 'zod';
import { appError, insufficientScope, knownError, unauthorized, validationFailed, type FieldError } from '../errors/errors.ts';
import { operationErrorCodes } from './error-codes.ts';
import { requestHash, withIdempotency } from '../domain/idempotency/store.ts';
import { stringFieldErrors } from './string-guard.ts';
import type { Operation, OperationContext } from './operation.ts';
import { SCOPES, type Principal } from '../auth/scopes.ts';

export interface InvokeOptions {
  idempotencyKey?: string;
  /** WWW-Authenticate challenge the transport sends with a 401. */
  challenge: string;
}

export interface InvokeResult {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** Zod issues → field errors with dotted paths (`items.0.weeks`). */
export function fieldErrors(error: z.ZodError): FieldError[] {
  const dotted = (path: PropertyKey[]) => path.map(String).join('.') || '(body)';
  const bounded = new Set(error.issues.filter((i) => !isSafeIntegerBound(i) && i.code.startsWith('too_')).map((i) => dotted(i.path)));
  return error.issues.flatMap((issue) => {
    // An unknown key is reported at its own path, so the caller sees which key to drop.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: dotted([...issue.path, key]), message: `Unknown field "${key}"` }));
    }
    // zod's own safe-integer bound (2^53 - 1) means nothing to a caller; the field's own limit says it.
    if (isSafeIntegerBound(issue)) return bounded.has(dotted(issue.path)) ? [] : [{ path: dotted(issue.path), message: 'Out of range' }];
    return [{ path: dotted(issue.path), message: issue.message }];
  });
}

function isSafeIntegerBound(issue: z.core.$ZodIssue): boolean {
  const bound = issue.code === 'too_big' ? issue.maximum : issue.code === 'too_small' ? issue.minimum : undefined;
  return bound !== undefined && Math.abs(Number(bound)) === Number.MAX_SAFE_INTEGER;
}

/**
 * Runs one operation the same way for every transport: credentials and scope first, then
 * input validation, then the handler, inside the idempotency store when a key is given.
 */
export async function invoke(op: Operation, rawInput: unknown, ctx: OperationContext, options: InvokeOptions): Promise<InvokeResult> {
  if (op.scope) {
    if (!ctx.principal) throw unauthorized('This operation needs an API key or access token.', options.challenge);
    if (!ctx.principal.scopes.includes(op.scope)) throw insufficientScope(op.scope, options.challenge);
  }
  const parsed = op.input.safeParse(rawInput);
  if (!parsed.success) throw validationFailed(fieldErrors(parsed.error));
  const strings = stringFieldErrors(parsed.data);
  if (strings.length) throw validationFailed(strings);
  const run = async () => ({ status: op.successStatus ?? 200, body: checkedOutput(op, await handle(op, parsed.data, ctx), ctx) });
  if (options.idempotencyKey !== undefined && op.idempotent && ctx.principal) {
    const scope = { credential: ctx.principal.credentialId, operation: op.name, key: options.idempotencyKey };
    return withIdempotency(ctx.db, scope, requestHash(parsed.data), run, ctx.clock.now());
  }
  return { ...(await run()), replayed: false };
}

/**
 * The handler's result. With CHECK_OUTPUTS (all tests), an error whose code the operation does not
 * declare fails the call loudly, as a broken output does: the OpenAPI document, /docs and MCP
 * promise every client the operation's codes, so the whole suite holds the declarations true.
 */
async function handle(op: Operation, input: Parameters<Operation['handler']>[0], ctx: OperationContext): Promise<unknown> {
  try {
    return await op.handler(input, ctx);
  } catch (err) {
    const code = ctx.config.checkOutputs ? knownError(err)?.code : undefined;
    if (code && !operationErrorCodes(op).includes(code)) {
      ctx.log.error({ operation: op.name, code }, 'error code not declared');
      throw appError('output_invalid', `${op.name} returned the error code ${code}, which it does not declare (errorCodes).`);
    }
    throw err;
  }
}

/**
 * With CHECK_OUTPUTS (all tests), a result that breaks the operation's output schema fails the call
 * loudly: the OpenAPI document and MCP outputSchema promise that shape to every client.
 */
function checkedOutput(op: Operation, body: unknown, ctx: OperationContext): unknown {
  if (!ctx.config.checkOutputs) return body;
  const checked = op.output.safeParse(body);
  if (checked.success) return body;
  const problems = fieldErrors(checked.error).map((e) => `${e.path}: ${e.message}`);
  ctx.log.error({ operation: op.name, problems }, 'output breaks its schema');
  throw appError('output_invalid', `${op.name} returned output that breaks its schema: ${problems.join('; ')}`);
}

/** A signed-in person in the browser: their own pages may do what any key of theirs could. */
export const sessionPrincipal = (userId: number, sessionIdHash: string): Principal => ({
  userId,
  credentialId: `session:${sessionIdHash}`,
  scopes: SCOPES,
});
