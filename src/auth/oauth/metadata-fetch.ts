import fs from 'node:fs';
import tls from 'node:tls';
import type { Config } from '../../config/config.ts';
import { createGuardedLookup, isIpLiteral } from '../../domain/crawl/address-guard.ts';
import { createCrawlAgent, fetchPage } from '../../domain/crawl/fetch-page.ts';
import type { CrawlOptions } from '../../domain/crawl/types.ts';
import { loadUndici } from '../../lib/undici.ts';
import { parseHttpsUrl } from '../../lib/urls.ts';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What oidc-provider reads of a document at most (its own limit for client ID metadata documents). */
const MAX_DOCUMENT_BYTES = 5 * 1024;
const TIMEOUT_MS = 2_500;

/**
 * How the authorization server fetches client ID metadata documents: through the crawler's
 * guarded fetch (src/domain/crawl), so every address is checked at connect time and nothing on
 * loopback, private or other special-use ranges is reached; no redirect is followed (the provider
 * wants the document itself, status 200). Hosts listed in OAUTH_CLIENT_METADATA_HOSTS
 * (development and tests only) may be on loopback or private addresses, trusting
 * OAUTH_CLIENT_METADATA_CA_FILE as well as the public roots.
 */
export function clientMetadataFetch(config: Config): Fetch {
  const trusted = trustedHosts(config);
  const guarded = createCrawlAgent(false);
  const { metadataCaFile } = config.oauth;
  const ca = metadataCaFile ? [...tls.rootCertificates, fs.readFileSync(metadataCaFile, 'utf8')] : undefined;
  // Trusted development hosts may be private or loopback, never link-local (cloud metadata) and the like.
  const { Agent } = loadUndici();
  const development = new Agent({ connect: { ...(ca ? { ca } : {}), lookup: createGuardedLookup(true) }, keepAliveTimeout: 1_000 });
  return async function fetchMetadataDocument(input) {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const isTrusted = trusted.has(url.host.toLowerCase());
    const options: CrawlOptions = {
      ...config.crawl,
      allowPrivateNetworks: isTrusted,
      timeoutMs: Math.min(config.crawl.timeoutMs, TIMEOUT_MS),
      maxBytes: MAX_DOCUMENT_BYTES,
      maxRedirects: 0,
    };
    const page = await fetchPage(url.href, options, isTrusted ? development : guarded, {
      accept: 'application/json',
      acceptContentType: () => true, // the provider parses the body as JSON and checks it
      allowHttpErrors: true,
    });
    return new Response(page.body, { status: page.status, headers: page.mediaType ? { 'content-type': page.mediaType } : {} });
  };
}

/**
 * Whether a client id may be fetched at all: never an IP literal or a localhost name (the
 * connect-time guard would refuse them too, but they are not even tried), except on a host of
 * OAUTH_CLIENT_METADATA_HOSTS.
 */
export function metadataFetchAllowed(config: Config): (clientId: string) => boolean {
  const trusted = trustedHosts(config);
  return function allowFetch(clientId) {
    const url = parseHttpsUrl(clientId);
    if (!url) return false;
    if (trusted.has(url.host.toLowerCase())) return true;
    // The WHATWG parser already turned 0x7f.1, 2130706433 and the like into 127.0.0.1.
    const hostname = url.hostname.toLowerCase().replace(/\.$/, '');
    return !isIpLiteral(hostname) && hostname !== 'localhost' && !hostname.endsWith('.localhost');
  };
}

const trustedHosts = (config: Config) => new Set(config.oauth.metadataHosts.map((h) => h.toLowerCase()));
