import { parse } from 'tldts';

/**
 * Company identity: THE one place that says whose a website is. Listings (one per
 * company and site), the crawler's same-site rule, claims (email domain, redirects of checks),
 * badge pages and the drafted brand all ask here, so they cannot disagree.
 */

/** What a website's address says about the company behind it. */
export interface Company {
  /**
   * The company's key: its registrable domain by the public suffix list *with its private
   * section* (acme.vercel.app and zeta.vercel.app are two companies), or, for a host with no
   * registrable domain (an IP address, a bare name such as localhost, a public suffix itself),
   * `host:port`: in development and tests every address and port is a website of its own.
   */
  key: string;
  /** The registrable domain; null when the host has none (see `key`). */
  domain: string | null;
  /**
   * The suffix of the private section the domain sits under (github.io for a.github.io), else
   * null: such a suffix is someone else's hosting, so no address there is the company's.
   */
  privateSuffix: string | null;
  isIp: boolean;
  /** The lower-case host without a trailing dot (IPv6 without brackets). */
  host: string;
}

const PSL_OPTIONS = { allowPrivateDomains: true } as const;

/** acme.co.uk for www.acme.co.uk, acme.vercel.app for www.acme.vercel.app; null for an IP address or a suffix. */
export function registrableDomain(host: string): string | null {
  return parse(normalHost(host), PSL_OPTIONS).domain;
}

/** The company of a website (`url` absolute); throws a TypeError for a string that is no URL. */
export function companyOf(url: string | URL): Company {
  const u = typeof url === 'string' ? new URL(url) : url;
  const host = normalHost(u.hostname);
  const parsed = parse(host, PSL_OPTIONS);
  const domain = parsed.domain;
  return {
    key: domain ?? `${u.hostname.toLowerCase().replace(/\.$/, '')}:${portOf(u)}`,
    domain,
    privateSuffix: domain && parsed.isPrivate ? parsed.publicSuffix : null,
    isIp: parsed.isIp === true,
    host,
  };
}

/** The company key of a website (see Company.key); what `listings.company_domain` holds. */
export function companyKey(url: string | URL): string {
  return companyOf(url).key;
}

/** Whether two websites belong to one company (a crawl, a check or a redirect stays within it). */
export function sameCompany(a: string | URL, b: string | URL): boolean {
  return companyKey(a) === companyKey(b);
}

function normalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** The port a URL reaches: its own, or its scheme's default (http://10.0.0.1 is port 80). */
function portOf(u: URL): string {
  if (u.port) return u.port;
  return u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '';
}
