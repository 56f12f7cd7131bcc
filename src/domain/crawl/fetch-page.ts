import type { Agent, Dispatcher } from 'undici';
import { loadUndici } from '../../lib/undici.ts';
import { checkIpLiteral, createGuardedLookup, isAddressRefusedError } from './address-guard.ts';
import { parseHttpUrl } from '../../lib/urls.ts';
import { CrawlError, invalidCrawlUrl } from './types.ts';
import type { CrawlOptions } from './types.ts';

/** An undici Agent whose connections go through the address guard (checked at connect time). */
export function createCrawlAgent(allowPrivateNetworks: boolean): Agent {
  const { Agent } = loadUndici();
  return new Agent({
    connect: { lookup: createGuardedLookup(allowPrivateNetworks) },
    keepAliveTimeout: 1_000,
  });
}

export interface FetchPageOptions {
  /** Accept header; default `text/html,application/xhtml+xml`. */
  accept?: string;
  /** Which media types are accepted; default HTML and XHTML. */
  acceptContentType?: (mediaType: string) => boolean;
  /** Return non-2xx responses (without body) instead of throwing `http_error`. */
  allowHttpErrors?: boolean;
  /** Keep the first maxBytes of a larger body instead of throwing `too_large`. */
  truncate?: boolean;
  /** Overrides options.maxRedirects. */
  maxRedirects?: number;
  /** Called before the first request and before every redirect hop (e.g. a robots.txt check); may throw. */
  beforeRequest?: (url: string) => Promise<void>;
}

export interface FetchedPage {
  /** Final URL after redirects. */
  url: string;
  status: number;
  mediaType: string;
  body: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export const isHtmlMediaType = (t: string) => t === 'text/html' || t === 'application/xhtml+xml';

/** Fetches one URL with a GET, following redirects by hand; every failure is a CrawlError. */
export async function fetchPage(url: string, options: CrawlOptions, agent: Dispatcher, extra: FetchPageOptions = {}): Promise<FetchedPage> {
  const { bytes, contentType, ...fetched } = await fetchBytes(url, options, agent, extra);
  return { ...fetched, body: decodeBody(bytes, contentType) };
}

/** A fetched response body as bytes (an image), with its final URL and declared type. */
export interface FetchedBytes {
  url: string;
  status: number;
  mediaType: string;
  contentType: string;
  bytes: Buffer;
}

/** fetchPage without decoding the body: the same guards, redirects, type check and size limit. */
export async function fetchBytes(
  url: string,
  options: CrawlOptions,
  agent: Dispatcher,
  extra: FetchPageOptions = {},
): Promise<FetchedBytes> {
  const { request } = loadUndici();
  const maxRedirects = extra.maxRedirects ?? options.maxRedirects;
  const acceptType = extra.acceptContentType ?? isHtmlMediaType;
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = crawlableUrl(url);
  let redirects = 0;
  for (;;) {
    let res: Dispatcher.ResponseData;
    if (extra.beforeRequest) await extra.beforeRequest(current.href);
    try {
      checkIpLiteral(current.hostname, options.allowPrivateNetworks);
      res = await request(current.href, {
        dispatcher: agent,
        method: 'GET',
        headers: {
          'user-agent': options.userAgent,
          accept: extra.accept ?? 'text/html,application/xhtml+xml;q=0.9',
        },
        signal,
      });
    } catch (err) {
      throw toCrawlError(err, current.href, signal, options);
    }
    const status = res.statusCode;
    const location = headerValue(res.headers.location);
    if (REDIRECT_STATUSES.has(status) && location) {
      discard(res.body);
      if (redirects >= maxRedirects) {
        throw new CrawlError(
          'too_many_redirects',
          `${url} redirected more than ${maxRedirects} times (last redirect from ${current.href} to ${location}); the limit is ${maxRedirects}.`,
        );
      }
      redirects++;
      const resolved = URL.parse(location, current);
      if (!resolved) throw new CrawlError('invalid_url', `${current.href} redirected to "${location}", which is not a valid address.`);
      const next = parseHttpUrl(resolved.href);
      if (!next) {
        throw new CrawlError(
          'invalid_url',
          `${current.href} redirected to ${resolved.href}; only http and https addresses without credentials can be crawled.`,
        );
      }
      next.hash = '';
      current = next;
      continue;
    }
    if (status < 200 || status > 299) {
      discard(res.body);
      if (extra.allowHttpErrors) return { url: current.href, status, mediaType: '', contentType: '', bytes: Buffer.alloc(0) };
      throw new CrawlError(
        'http_error',
        `The page at ${current.href} answered with HTTP status ${status}${res.statusText ? ` (${res.statusText})` : ''}.`,
      );
    }
    const contentType = headerValue(res.headers['content-type']) ?? '';
    const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
    if (!acceptType(mediaType)) {
      discard(res.body);
      throw new CrawlError(
        'not_html',
        `The page at ${current.href} is ${mediaType ? `of type ${mediaType}` : 'of no declared type'}, not an HTML page.`,
      );
    }
    const declaredLength = Number(headerValue(res.headers['content-length']) ?? NaN);
    if (!extra.truncate && Number.isFinite(declaredLength) && declaredLength > options.maxBytes) {
      discard(res.body);
      throw tooLarge(current.href, declaredLength, options.maxBytes);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > options.maxBytes) {
          if (extra.truncate) {
            chunks.push(buf.subarray(0, buf.length - (size - options.maxBytes)));
            size = options.maxBytes;
            break;
          }
          discard(res.body);
          throw tooLarge(current.href, null, options.maxBytes);
        }
        chunks.push(buf);
      }
    } catch (err) {
      discard(res.body);
      if (err instanceof CrawlError) throw err;
      throw toCrawlError(err, current.href, signal, options);
    } finally {
      if (extra.truncate) discard(res.body);
    }
    return { url: current.href, status, mediaType, contentType, bytes: Buffer.concat(chunks, size) };
  }
}

/** Drops a response body without reading it (destroying emits an error nobody needs). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

function crawlableUrl(url: string): URL {
  const parsed = parseHttpUrl(url);
  if (!parsed) throw invalidCrawlUrl(url);
  parsed.hash = '';
  return parsed;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${trimNumber(n / (1024 * 1024))} MB`;
  if (n >= 1024) return `${trimNumber(n / 1024)} KB`;
  return `${n} bytes`;
}

function trimNumber(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}

function tooLarge(url: string, size: number | null, max: number): CrawlError {
  return new CrawlError(
    'too_large',
    size === null
      ? `The page at ${url} is larger than ${formatBytes(max)}, the limit.`
      : `The page at ${url} is ${formatBytes(size)}; the limit is ${formatBytes(max)}.`,
  );
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL', 'ENODATA']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Maps a network error to a CrawlError with an owner-readable message. */
export function toCrawlError(err: unknown, url: string, signal: AbortSignal | null, options: CrawlOptions): CrawlError {
  if (err instanceof CrawlError) return err;
  const host = safeHost(url);
  const chain: unknown[] = [];
  for (let e: unknown = err, i = 0; e && i < 5; e = (e as { cause?: unknown }).cause, i++) chain.push(e);
  for (const e of chain) {
    if (isAddressRefusedError(e)) return new CrawlError('address_refused', `Refused to fetch ${url}: ${e.message}`);
  }
  if (signal?.aborted) {
    return new CrawlError('timeout', `The page at ${url} did not load within ${trimNumber(options.timeoutMs / 1000)} seconds.`);
  }
  for (const e of chain) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (DNS_CODES.has(code)) {
      return new CrawlError('dns_failure', `The host name ${host} could not be found (DNS lookup failed: ${code}).`);
    }
    if (TIMEOUT_CODES.has(code)) {
      return new CrawlError('timeout', `The page at ${url} did not load within ${trimNumber(options.timeoutMs / 1000)} seconds.`);
    }
    if (code === 'ECONNREFUSED') return new CrawlError('connection_failed', `The server at ${host} refused the connection.`);
    if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL')) {
      return new CrawlError('connection_failed', `A secure connection to ${host} could not be made (${code}).`);
    }
    return new CrawlError('connection_failed', `The connection to ${host} failed (${code}).`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new CrawlError('connection_failed', `The connection to ${host} failed: ${message}`);
}

const safeHost = (url: string): string => URL.parse(url)?.host ?? url;

/** Decodes a body with the charset from Content-Type or a <meta charset>, utf-8 by default. */
export function decodeBody(bytes: Uint8Array, contentType: string): string {
  let charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  if (!charset) {
    const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
    charset = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}
