import type { z } from 'zod';
import { AppError, type FieldError } from '../errors/errors.ts';
import { fieldErrors } from '../operations/invoke.ts';
import type { FieldMessages } from './forms.ts';
import { attr, labelled } from './components.ts';
import { html, type SafeHtml } from './html.ts';

/** Form pieces of the owner pages whose rules live in an operation's input schema. */

export interface TextAreaOptions {
  name: string;
  label: string;
  value?: string | null;
  error?: string;
  hint?: SafeHtml | string;
  rows?: number;
  maxlength?: number;
}

/** A labelled textarea with its hint and error, wired like `field` (ids `f-<name>`). */
export function textArea(o: TextAreaOptions): SafeHtml {
  return labelled(
    o,
    (id, described) =>
      html`<textarea id="${id}" name="${o.name}" rows="${o.rows ?? 6}"${attr('aria-describedby', described)}${o.error ? html` aria-invalid="true"` : ''}${attr('maxlength', o.maxlength)}>${o.value ?? ''}</textarea>`,
  );
}

/**
 * Field errors of an operation (dotted paths such as `links.1`) as messages per form field:
 * the first segment names the field, a list index is said in words ("Link 2: …"); every message of
 * a field is kept (two bad links are both named), each once.
 */
export function formMessages(errors: FieldError[], itemLabels: Record<string, string> = {}): FieldMessages {
  const messages: FieldMessages = {};
  for (const { path, message } of errors) {
    const [name = 'form', index] = path.split('.');
    const field = name === '(body)' ? 'form' : name;
    const prefix = index !== undefined && /^\d+$/.test(index) ? `${itemLabels[field] ?? 'Item'} ${Number(index) + 1}: ` : '';
    const text = prefix + message;
    if (!messages[field]) messages[field] = text;
    else if (!messages[field].split('; ').includes(text)) messages[field] += `; ${text}`;
  }
  return messages;
}

/** Validates form values with an operation's input schema; messages per field on failure. */
export function parseWithSchema<S extends z.ZodType>(
  schema: S,
  values: Record<string, unknown>,
  itemLabels?: Record<string, string>,
): { ok: true; data: z.output<S> } | { ok: false; errors: FieldMessages } {
  const parsed = schema.safeParse(values);
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, errors: formMessages(fieldErrors(parsed.error), itemLabels) };
}

/**
 * A refusal of the domain (bad image, story below the minimum) as form messages with its
 * HTTP status. Anything else (not found, server errors) is thrown on to the error page.
 */
export function refusal(err: unknown, field = 'form', itemLabels?: Record<string, string>): { status: number; errors: FieldMessages } {
  if (!(err instanceof AppError) || err.status >= 500 || err.status === 404) throw err;
  const errors = err.errors?.length ? formMessages(err.errors, itemLabels) : { [field]: err.message };
  return { status: err.status, errors };
}
