import type { z } from 'zod';
import { insufficientScope, unauthorized, validationFailed, type FieldError } from '../errors.ts';
import { requestHash, withIdempotency } from '../domain/idempotency/store.ts';
import { nulFieldErrors } from './nul-guard.ts';
import type { Operation, OperationContext } from './operation.ts';

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
  return error.issues.flatMap((issue) =>
    // An unknown key is reported at its own path, so the caller sees which key to drop.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: dotted([...issue.path, key]), message: `Unknown field "${key}"` }))
      : [{ path: dotted(issue.path), message: issue.message }],
  );
}

/**
 * Runs one operation the same way for every transport: credentials and scope first, then
 * input validation, then the handler, inside the idempotency store when a key is given.
 */
export async function invoke(
  op: Operation,
  rawInput: unknown,
  ctx: OperationContext,
  options: InvokeOptions,
): Promise<InvokeResult> {
  if (op.scope) {
    if (!ctx.principal) throw unauthorized('This operation needs an API key or access token.', options.challenge);
    if (!ctx.principal.scopes.includes(op.scope)) throw insufficientScope(op.scope, options.challenge);
  }
  const parsed = op.input.safeParse(rawInput);
  if (!parsed.success) throw validationFailed(fieldErrors(parsed.error));
  const nul = nulFieldErrors(parsed.data);
  if (nul.length) throw validationFailed(nul);
  const run = async () => ({ status: op.successStatus ?? 200, body: await op.handler(parsed.data, ctx) });
  if (options.idempotencyKey !== undefined && op.idempotent && ctx.principal) {
    const scope = { credential: ctx.principal.credentialId, operation: op.name, key: options.idempotencyKey };
    return withIdempotency(ctx.db, scope, requestHash(parsed.data), run);
  }
  return { ...(await run()), replayed: false };
}
