/** HTML that is already safe to send: the output of `html` or a trusted `raw` string. */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Marks a trusted string (our own CSS or script) as HTML. Never pass user input. */
export const raw = (trusted: string) => new SafeHtml(trusted);

/**
 * Tagged template that escapes every interpolated value unless it is SafeHtml. Arrays are
 * rendered item by item; null, undefined and booleans render nothing (so `${cond && html`…`}`
 * works). It does not vet URLs: hrefs built from user input must be checked by the caller.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || typeof value === 'boolean') return '';
  return escapeHtml(String(value));
}
