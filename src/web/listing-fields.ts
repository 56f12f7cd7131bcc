import type { Evidence } from '../domain/fields.ts';
import type { FieldError } from '../errors/errors.ts';
import { LIMITS } from '../operations/schemas.ts';
import { attr, labelled } from './components.ts';
import { displayUrl, externalLink } from './content.ts';
import { evidenceText } from './evidence-text.ts';
import type { FieldMessages } from './forms.ts';
import { html, type SafeHtml } from './html.ts';
import { textArea } from './owner-forms.ts';

/**
 * The fields of a listing as the owner's forms show them (the draft review and the edit page):
 * label, kind, limit and the key of the crawl's evidence, so both forms say a field the same way.
 */
export interface ListingField {
  /** Form name and key in update_my_listing's `fields` (update_draft: see draftKey). */
  name: string;
  label: string;
  kind: 'line' | 'text' | 'email' | 'year' | 'lines';
  max?: number;
  hint?: string;
  /** Key of the evidence map (`facts.location`), when the crawl can find the field. */
  evidence?: string;
  required?: boolean;
}

export const SITE_TEXT_FIELDS: ListingField[] = [
  { name: 'headline', label: 'Headline', kind: 'line', max: LIMITS.headline, evidence: 'headline', hint: 'One line under the name.' },
  { name: 'summary', label: 'Summary', kind: 'text', max: LIMITS.summary, evidence: 'summary', hint: 'Plain text; line breaks are kept.' },
  { name: 'seo_title', label: 'Search engine title', kind: 'line', max: LIMITS.seoTitle, hint: 'The page title search engines show.' },
  {
    name: 'seo_description',
    label: 'Search engine description',
    kind: 'text',
    max: LIMITS.seoDescription,
    hint: 'The text search engines show under the title.',
  },
];

export const COMPANY_FIELDS: ListingField[] = [
  { name: 'name', label: 'Name', kind: 'line', max: LIMITS.name, evidence: 'name', required: true },
  { name: 'contact_email', label: 'Contact email', kind: 'email', max: LIMITS.email, evidence: 'contact_email', hint: 'Shown publicly.' },
  { name: 'legal_name', label: 'Legal name', kind: 'line', max: 200, evidence: 'facts.legal_name' },
  { name: 'founded_year', label: 'Founded in (year)', kind: 'year', evidence: 'facts.founded_year', hint: 'Four digits, such as 2019.' },
  { name: 'founders', label: 'Founders', kind: 'lines', max: 120, evidence: 'facts.founders', hint: 'One name per line, at most 10.' },
  { name: 'location', label: 'Location', kind: 'line', max: 200, evidence: 'facts.location' },
  { name: 'employees', label: 'Employees', kind: 'line', max: 50, evidence: 'facts.employees', hint: 'For example 2-10.' },
  { name: 'email', label: 'Company email', kind: 'email', max: LIMITS.email, evidence: 'facts.email' },
  { name: 'phone', label: 'Phone', kind: 'line', max: 50, evidence: 'facts.phone' },
];

/** Company facts are stored under `facts`; the other fields are columns. */
export const FACT_NAMES = new Set(['legal_name', 'founded_year', 'founders', 'location', 'employees', 'email', 'phone']);

/** Where a value came from: the page of the owner's website and the excerpt it was read from. */
export function evidenceNote(evidence: Evidence | undefined): SafeHtml | undefined {
  if (!evidence) return undefined;
  return html`<span class="evidence" data-evidence>Found on ${externalLink(evidence.source_url, displayUrl(evidence.source_url), 'nofollow noopener')}: <q>${evidenceText(evidence.snippet)}</q></span>`;
}

/** A hint made of the field's own hint and its evidence. */
function hintOf(f: ListingField, evidence: Evidence | undefined): SafeHtml | undefined {
  const note = evidenceNote(evidence);
  if (!f.hint && !note) return undefined;
  return html`${f.hint ?? ''}${f.hint && note ? ' ' : ''}${note ?? ''}`;
}

/** The form control of one listing field with its label, hint, evidence and error. */
export function listingFieldControl(
  f: ListingField,
  value: string,
  o: { error?: string; evidence?: Record<string, Evidence>; prefix?: string } = {},
): SafeHtml {
  const name = `${o.prefix ?? ''}${f.name}`;
  const hint = hintOf(f, f.evidence ? o.evidence?.[f.evidence] : undefined);
  if (f.kind === 'text' || f.kind === 'lines') {
    return textArea({
      name,
      label: f.label,
      value,
      error: o.error,
      hint,
      rows: f.kind === 'lines' ? 3 : 4,
      maxlength: f.kind === 'text' ? f.max : undefined,
    });
  }
  const type = f.kind === 'email' ? 'email' : 'text';
  const extra = f.kind === 'year' ? html` inputmode="numeric" maxlength="4"` : attr('maxlength', f.max);
  return labelled(
    { name, label: f.label, hint, error: o.error },
    (id, described) =>
      html`<input id="${id}" name="${name}" type="${type}" value="${value}"${attr('aria-describedby', described)}${o.error ? html` aria-invalid="true"` : ''}${f.required ? html` required` : ''}${extra}${f.kind === 'email' ? html` autocomplete="email"` : ''}>`,
  );
}

/** A stored value as the form shows it (founders one per line). */
export function formValueOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join('\n');
  return String(value);
}

/**
 * The value a form field sends to the operation: empty is null (clears it), a year is a number
 * when it is one (else the text, which the operation refuses with its message), lines are a list.
 */
export function inputValueOf(f: ListingField, raw: string): unknown {
  const value = raw.trim();
  if (f.kind === 'lines') {
    const items = value
      .split(/\r?\n/)
      .map((s) => s.trim())
      .filter(Boolean);
    return items.length ? items : null;
  }
  if (value === '') return f.required ? '' : null;
  if (f.kind === 'year') return /^\d{1,4}$/.test(value) ? Number(value) : value;
  return value;
}

/** Zod's default messages as a sentence for people. */
export function humanMessage(message: string): string {
  const long = /Too big: expected (?:string|array) to have <=\s*(\d+) (characters|items)/.exec(message);
  if (long) return `Must be at most ${long[1]} ${long[2]}.`;
  if (/Too small: expected string to have >=\s*1 characters/.test(message)) return 'Must not be empty.';
  if (/expected (int|number), received/.test(message) || /expected int/.test(message)) return 'Must be a whole number, such as 2019.';
  if (/Too (big|small): expected number/.test(message)) return 'Must be a year between 1800 and 2100.';
  if (/Invalid email/i.test(message)) return 'Must be an email address such as hello@example.com.';
  return message;
}

/** Field errors of an operation as messages per form field, with `map` naming the form field of a path. */
export function messagesFor(errors: FieldError[], map: (path: string[]) => string): FieldMessages {
  const messages: FieldMessages = {};
  for (const { path, message } of errors) {
    const field = map(path.split('.'));
    const text = humanMessage(message);
    messages[field] = messages[field] && !messages[field].includes(text) ? `${messages[field]} ${text}` : (messages[field] ?? text);
  }
  return messages;
}

/** Labels of every field a version can name, for the history. */
export const FIELD_LABELS: Record<string, string> = {
  ...Object.fromEntries([...SITE_TEXT_FIELDS, ...COMPANY_FIELDS].map((f) => [f.name, f.label])),
  socials: 'Social links',
  faqs: 'FAQs',
  milestones: 'Milestones',
  categories: 'Categories',
  logo_url: 'Logo',
  image_url: 'Image',
};

export const fieldLabel = (key: string) => FIELD_LABELS[key] ?? key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');

/** A stored value of any field as one readable text (lists and maps flattened). */
export function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map((v) => valueText(v)).join(' · ');
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if ('question' in o && 'answer' in o) return `${valueText(o.question)} — ${valueText(o.answer)}`;
    if ('title' in o && 'date' in o) return `${valueText(o.date)} ${valueText(o.title)}`;
    return Object.entries(o)
      .map(([k, v]) => `${k}: ${valueText(v)}`)
      .join(' · ');
  }
  return String(value);
}

/**
 * A word diff of two texts: unchanged words as they are, removed ones in <del>, added ones in
 * <ins> (longest common subsequence of the words; long texts fall back to before → after).
 */
export function wordDiff(before: string, after: string): SafeHtml {
  if (before === '') return after === '' ? html`<span class="muted">(empty)</span>` : html`<ins>${after}</ins>`;
  if (after === '') return html`<del>${before}</del> <span class="muted">(now empty)</span>`;
  const a = before.split(/(\s+)/);
  const b = after.split(/(\s+)/);
  if (a.length * b.length > 250_000) return html`<del>${before}</del> <ins>${after}</ins>`;
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: SafeHtml[] = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(html`${a[i++]}`);
      j++;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push(html`<ins>${b[j++]}</ins>`);
    } else out.push(html`<del>${a[i++]}</del>`);
  }
  return html`${out}`;
}

/** The changes of one version as a list: each field with its word diff. */
export function changesList(changes: Record<string, { before: unknown; after: unknown }>): SafeHtml {
  return html`<ul class="changes">${Object.entries(changes).map(
    ([key, { before, after }]) =>
      html`<li data-change="${key}"><strong>${fieldLabel(key)}:</strong> ${wordDiff(valueText(before), valueText(after))}</li>`,
  )}</ul>`;
}
