const PLACEHOLDER_ORIGIN = 'http://return-to.invalid';

/**
 * A `return_to` value made safe to redirect to: a relative path on this site, or the fallback.
 * Refused: absolute and protocol-relative URLs (`//evil`, `/\evil`), backslashes and control
 * characters (browsers drop tabs and newlines, turning `/\t/evil` into `//evil`), and anything
 * that does not resolve to this origin. The check runs again on the normalized path, the value
 * that is actually sent in `Location`: dot segments collapse (`/.//evil`, `/a/..//evil`,
 * `/%2e//evil` all normalize to `//evil`, which a browser reads as another host).
 */
export function safeReturnTo(value: unknown, fallback = '/account'): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return fallback;
  if (!isLocalPath(value)) return fallback;
  const url = URL.parse(value, PLACEHOLDER_ORIGIN);
  if (!url || url.origin !== PLACEHOLDER_ORIGIN) return fallback;
  const normalized = url.pathname + url.search + url.hash;
  return isLocalPath(normalized) ? normalized : fallback;
}

/** A path a browser resolves against this origin: one leading slash, no backslash or control. */
function isLocalPath(path: string): boolean {
  if (!path.startsWith('/') || path.startsWith('//')) return false;
  return !/[\\\u0000-\u001f\u007f]/.test(path);
}
