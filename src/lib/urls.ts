/**
 * THE check of web addresses, pure, for every layer (the API's fields, the crawler, the OAuth
 * client rules, the admin CLI, the pages' links): what counts as an http(s) URL is decided here.
 */

/** Whether `url` has the http or https scheme (custom-scheme redirect URIs, `javascript:`, `data:` have not). */
export function hasHttpScheme(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/**
 * The URL if `value` (resolved against `base` when given) is an absolute http(s) URL with a host
 * and without credentials, else null. The one check the API, the crawler and the social-link rules share.
 */
export function parseHttpUrl(value: string, base?: string | URL): URL | null {
  const url = URL.parse(value, base);
  if (!url || !hasHttpScheme(url)) return null;
  if (url.username || url.password || !url.hostname) return null;
  return url;
}

/** The same, https only (OAuth client metadata documents, social profiles). */
export function parseHttpsUrl(value: string, base?: string | URL): URL | null {
  const url = parseHttpUrl(value, base);
  return url?.protocol === 'https:' ? url : null;
}
