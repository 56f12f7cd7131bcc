import type { FieldError } from '../errors.ts';

const MESSAGE = 'Must not contain NUL (\\u0000) characters';

/**
 * Field errors for every string (or object key) holding a NUL character: PostgreSQL cannot store
 * one in text or jsonb, so it would otherwise fail the write with a 500 instead of a 400.
 * Runs on every call's input, so the walk shares one path and allocates only for what it finds.
 */
export function nulFieldErrors(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(value, [], errors);
  return errors;
}

function walk(value: unknown, path: string[], errors: FieldError[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) errors.push({ path: path.join('.') || '(body)', message: MESSAGE });
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const key of Object.keys(value)) {
    path.push(key);
    if (key.includes('\u0000')) errors.push({ path: path.join('.'), message: MESSAGE });
    walk((value as Record<string, unknown>)[key], path, errors);
    path.pop();
  }
}
