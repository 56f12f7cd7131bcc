import fs from 'node:fs';
import tls from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Config } from '../../config.ts';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * How the authorization server fetches client ID metadata documents. By default: the provider's
 * own SSRF-safe fetch (https, public addresses only). Hosts listed in
 * OAUTH_CLIENT_METADATA_HOSTS (development and tests only) are fetched even on loopback or
 * private addresses, trusting OAUTH_CLIENT_METADATA_CA_FILE as well as the public roots.
 */
export function clientMetadataFetch(config: Config): Fetch | undefined {
  const { metadataHosts, metadataCaFile } = config.oauth;
  if (!metadataHosts.length) return undefined;
  const ca = metadataCaFile ? [...tls.rootCertificates, fs.readFileSync(metadataCaFile, 'utf8')] : undefined;
  const agent = new Agent({ connect: ca ? { ca } : {} });
  const trusted = new Set(metadataHosts.map((h) => h.toLowerCase()));
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!trusted.has(url.host.toLowerCase())) return globalThis.fetch(input, init);
    const { dispatcher: _ssrfGuard, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
    return undiciFetch(url, { ...(rest as object), dispatcher: agent }) as unknown as Promise<Response>;
  };
}
