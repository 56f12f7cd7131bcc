import { PASSWORD_MIN_LENGTH } from '../auth/passwords.ts';
import { csrfField } from './csrf.ts';
import type { FieldMessages } from './forms.ts';
import { html, type SafeHtml } from './html.ts';

/** Small building blocks of the pages, accessible by construction (labels, error links, live regions). */

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  value?: string;
  error?: string;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
  minlength?: number;
  maxlength?: number;
}

export function field(o: FieldOptions): SafeHtml {
  return labelled(
    o,
    (id, described) =>
      html`<input id="${id}" name="${o.name}" type="${o.type ?? 'text'}" value="${o.value ?? ''}"${attr('autocomplete', o.autocomplete)}${attr('aria-describedby', described)}${o.error ? html` aria-invalid="true"` : ''}${o.required ? html` required` : ''}${attr('minlength', o.minlength)}${attr('maxlength', o.maxlength)}>`,
  );
}

/**
 * A form control with its label, hint and error, wired for screen readers (ids `f-<name>`);
 * `control` gets the id and the aria-describedby value (undefined when there is nothing to name).
 */
export function labelled(
  o: { name: string; label: string; hint?: SafeHtml | string; error?: string },
  control: (id: string, described: string | undefined) => SafeHtml,
): SafeHtml {
  const id = `f-${o.name}`;
  const described = [o.hint && `${id}-hint`, o.error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  return html`<div class="field">
<label for="${id}">${o.label}</label>
${o.hint && html`<p class="hint" id="${id}-hint">${o.hint}</p>`}
${o.error && html`<p class="error" id="${id}-error">${o.error}</p>`}
${control(id, described)}
</div>`;
}

/** ` name="value"`, or nothing when the value is absent. */
export const attr = (name: string, value: string | number | undefined) => (value === undefined ? '' : html` ${name}="${value}"`);

/** The list of problems at the top of a form, each linking to its field (`form`: the whole form). */
export function errorSummary(errors: FieldMessages | undefined): SafeHtml {
  const entries = Object.entries(errors ?? {});
  if (entries.length === 0) return html``;
  return html`<div class="error-summary" role="alert">
<h2>There is a problem</h2>
<ul>${entries.map(([name, message]) => html`<li>${name === 'form' ? message : html`<a href="#f-${name}">${message}</a>`}</li>`)}</ul>
</div>`;
}

/** A POST form carrying the CSRF token. */
export const postForm = (action: string, token: string, content: SafeHtml, className?: string): SafeHtml =>
  html`<form method="post" action="${action}"${className ? html` class="${className}"` : ''}>${csrfField(token)}${content}</form>`;

/** A timestamp people can read (UTC) with the exact value in the markup. */
export function time(value: Date | string | null | undefined, empty = 'never'): SafeHtml {
  if (!value) return html`<span class="muted">${empty}</span>`;
  const iso = new Date(value).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

/** The field where someone chooses a password (sign-up, reset). */
export function newPasswordField(o: { label: string; error?: string; hint: string }): SafeHtml {
  return field({ name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: PASSWORD_MIN_LENGTH, ...o });
}
