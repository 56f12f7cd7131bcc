import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../errors/errors.ts';
import { hasBody, pathParams } from './json-schema.ts';
import { bodyLimitOf, type Operation } from './operation.ts';

/** What any operation can answer, whatever it does: a bad field, and our side failing. */
const ALWAYS: ErrorCode[] = ['validation_failed', 'internal_error', 'database_unavailable'];

/**
 * Every code an operation can return: the ones it declares (`errorCodes`, what its handler
 * throws) and the ones its flags imply, so declarations stay short. In catalogue order, which
 * is by status. invoke() holds handlers to it in tests; OpenAPI and /docs publish it.
 */
export function operationErrorCodes(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>([...ALWAYS, ...(op.errorCodes ?? [])]);
  if (pathParams(op.path).length) codes.add('not_found'); // an id that does not exist, or is another owner's
  if (op.scope) codes.add('unauthorized').add('insufficient_scope');
  if (hasBody(op)) codes.add('invalid_json').add('unsupported_media_type').add(bodyLimitOf(op).tooLarge().code);
  if (op.idempotent) codes.add('invalid_idempotency_key').add('idempotency_conflict').add('idempotency_in_flight');
  if (op.startsWorkflow) codes.add('workflow_unavailable');
  return ERROR_CODES.filter((code) => codes.has(code));
}

/** The codes of an operation by status (`"409": ["sold_out", ...]`), in status order. */
export function errorCodesByStatus(op: Operation): Record<string, ErrorCode[]> {
  const byStatus: Record<string, ErrorCode[]> = {};
  const codes = operationErrorCodes(op).sort((a, b) => ERROR_CATALOGUE[a].status - ERROR_CATALOGUE[b].status);
  for (const code of codes) (byStatus[String(ERROR_CATALOGUE[code].status)] ??= []).push(code);
  return byStatus;
}
