import freeMailDomains from 'email-providers/all.json' with { type: 'json' };
import { parse } from 'tldts';

const FREE_MAIL = new Set<string>(freeMailDomains as string[]);

/**
 * Why a listing cannot be claimed by email, or null when it can: its website must sit on a
 * registrable domain of its own (not a public suffix, an IP address or a shared hosting domain
 * such as github.io) that is not a free-mail provider, where anyone can have an address.
 */
export function emailClaimRefusal(listingUrl: string): string | null {
  const host = new URL(listingUrl).hostname.toLowerCase();
  const parsed = parse(host, { allowPrivateDomains: true });
  if (parsed.isIp || !parsed.domain) {
    return `The website's host ${host} is not a registrable domain (a public suffix or an address), so no address there proves ownership; use dns, meta or file.`;
  }
  if (parsed.isPrivate) {
    return `The website is hosted under the shared domain ${parsed.publicSuffix}, whose addresses do not belong to the company; use dns, meta or file.`;
  }
  if (FREE_MAIL.has(parsed.domain)) {
    return `${parsed.domain} is a free-mail provider where anyone can have an address; use dns, meta or file.`;
  }
  return null;
}

/** The registrable domain an email claim's address must be at (or under) for this listing. */
export function emailClaimDomain(listingUrl: string): string {
  return parse(new URL(listingUrl).hostname.toLowerCase(), { allowPrivateDomains: true }).domain ?? '';
}

/** Whether `email` is an address at `domain` or one of its subdomains. */
export function isAddressAt(email: string, domain: string): boolean {
  const at = email.lastIndexOf('@');
  const host = email
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '');
  return at > 0 && domain !== '' && (host === domain || host.endsWith(`.${domain}`));
}
