const PLACEHOLDER_ORIGIN = 'http://return-to.invalid';

/**
 * A `return_to` value made safe to redirect to: a relative path on this site, or the fallback.
 * Refused: absolute and protocol-relative URLs (`//evil`, `/\evil`), backslashes and control
 * characters (browsers drop tabs and newlines, turning `/\t/evil` into `//evil`), and anything
 * that does not resolve to this origin.
 */
export function safeReturnTo(value: unknown, fallback = '/account'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return fallback;
  if (!value.startsWith('/') || value.startsWith('//')) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return fallback;
  const url = URL.parse(value, PLACEHOLDER_ORIGIN);
  if (!url || url.origin !== PLACEHOLDER_ORIGIN) return fallback;
  return url.pathname + url.search + url.hash;
}
