import { z } from 'zod';
import { appError } from '../errors.ts';
import { jsonSchemaOf } from './json-schema.ts';

/** THE Idempotency-Key rule of every transport (REST header, MCP `idempotency_key` argument). */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .describe('Makes retries safe: the same key and the same input replay the first result for 24 h instead of acting twice.');

/** JSON Schema of the key, for OpenAPI's header parameter and the MCP tool argument. */
export const IDEMPOTENCY_KEY_SCHEMA = jsonSchemaOf(IdempotencyKey);

/** The key as given, or undefined when absent; anything else is 400 invalid_idempotency_key naming `where`. */
export function idempotencyKey(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (IdempotencyKey.safeParse(value).success) return value as string;
  throw appError('invalid_idempotency_key', `${where} must be a string of 1 to 255 characters.`, {
    errors: [{ path: where, message: 'Must be a string of 1 to 255 characters' }],
  });
}
