import type { FieldError } from '../errors.ts';

const NUL = 'Must not contain NUL (\\u0000) characters';
const ILL_FORMED = 'Must be well-formed Unicode (no lone surrogate such as \\ud800)';

/**
 * THE rule every input string passes (REST, MCP and web calls all go through `invoke`): field
 * errors for every string or object key holding a NUL or a lone surrogate. PostgreSQL can store
 * neither in text or jsonb, so either would otherwise fail the write with a 500 instead of a 400.
 * Runs on every call's input, so the walk shares one path and allocates only for what it finds.
 * The transports bound the nesting (src/http/json-depth.ts) before this recursion sees a value.
 */
export function stringFieldErrors(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  walk(value, [], errors);
  return errors;
}

/** The rule's message for one string, or null when PostgreSQL can store it. */
function problemOf(text: string): string | null {
  if (text.includes('\u0000')) return NUL;
  return text.isWellFormed() ? null : ILL_FORMED;
}

function walk(value: unknown, path: string[], errors: FieldError[]): void {
  if (typeof value === 'string') {
    const message = problemOf(value);
    if (message) errors.push({ path: path.join('.') || '(body)', message });
    return;
  }
  if (!value || typeof value !== 'object') return;
  for (const key of Object.keys(value)) {
    path.push(key);
    const message = problemOf(key);
    if (message) errors.push({ path: path.join('.'), message });
    walk((value as Record<string, unknown>)[key], path, errors);
    path.pop();
  }
}
