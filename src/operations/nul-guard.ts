import type { FieldError } from '../errors.ts';

const MESSAGE = 'Must not contain NUL (\\u0000) characters';

/**
 * Field errors for every string (or object key) holding a NUL character: PostgreSQL cannot store
 * one in text or jsonb, so it would otherwise fail the write with a 500 instead of a 400.
 */
export function nulFieldErrors(value: unknown, path: string[] = []): FieldError[] {
  const at = (p: string[]) => p.join('.') || '(body)';
  if (typeof value === 'string') return value.includes('\u0000') ? [{ path: at(path), message: MESSAGE }] : [];
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(key.includes('\u0000') ? [{ path: at([...path, key]), message: MESSAGE }] : []),
    ...nulFieldErrors(inner, [...path, key]),
  ]);
}
