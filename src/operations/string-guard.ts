import { unstorableText } from '../domain/fields.ts';
import type { FieldError } from '../errors/errors.ts';

/**
 * Field errors for every string or object key of an operation's input that PostgreSQL cannot
 * store (domain/fields.ts unstorableText: a NUL, a lone surrogate), which would otherwise fail
 * the write with a 500 instead of a 400. REST, MCP and web calls all pass here (`invoke`).
 * Runs on every call's input, so the walk shares one path and allocates only for what it finds.
 * The transports bound the nesting (src/http/json-depth.ts) before this recursion sees a value.
 */
export function stringFieldErrors(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(value, [], errors);
  return errors;
}

function walk(value: unknown, path: string[], errors: FieldError[]): void {
  if (typeof value === 'string') {
    const message = unstorableText(value);
    if (message) errors.push({ path: path.join('.') || '(body)', message });
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const key of Object.keys(value)) {
    path.push(key);
    const message = unstorableText(key);
    if (message) errors.push({ path: path.join('.'), message });
    walk((value as Record<string, unknown>)[key], path, errors);
    path.pop();
  }
}
