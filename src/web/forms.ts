import type { Context } from 'koa';
import type { z } from 'zod';

/** Messages by field name (the first segment of the zod path). */
export type FieldMessages = Record<string, string>;

export type FormResult<T> = { ok: true; data: T } | { ok: false; errors: FieldMessages };

/** The parsed urlencoded body; anything else is treated as an empty form. */
export function formBody(ctx: Context): Record<string, unknown> {
  const body = (ctx.request as { body?: unknown }).body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** A single text value of a form field: arrays and nested values (`a[b]=c`) count as absent. */
export const formString = (body: Record<string, unknown>, name: string): string =>
  typeof body[name] === 'string' ? (body[name] as string) : '';

/** Validates a form; the first message per field is kept for display next to the field. */
export function parseForm<S extends z.ZodType>(schema: S, body: Record<string, unknown>): FormResult<z.output<S>> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: FieldMessages = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0] ?? 'form');
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}
