import { z } from 'zod';
import { ONE_LINE_PATTERN } from '../domain/fields.ts';
import { appError } from '../errors/errors.ts';
import { jsonSchemaOf } from './json-schema.ts';

/** THE Idempotency-Key rule of every transport (REST header, MCP `idempotency_key` argument). */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  // Stored in PostgreSQL text: no NUL (nor other control characters), no lone surrogate (MCP sends JSON strings).
  .regex(ONE_LINE_PATTERN)
  .refine((key) => key.isWellFormed())
  .describe('Makes retries safe: the same key and the same input replay the first result for 24 h instead of acting twice.');

/** JSON Schema of the key, for OpenAPI's header parameter and the MCP tool argument. */
export const IDEMPOTENCY_KEY_SCHEMA = jsonSchemaOf(IdempotencyKey);

/** The key as given, or undefined when absent; anything else is 400 invalid_idempotency_key naming `where`. */
export function idempotencyKey(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (IdempotencyKey.safeParse(value).success) return value as string;
  throw appError('invalid_idempotency_key', `${where} must be a string of 1 to 255 characters without control characters.`, {
    errors: [{ path: where, message: 'Must be a string of 1 to 255 characters without control characters' }],
  });
}
