import freeMailDomains from 'email-providers/all.json' with { type: 'json' };
import { companyOf } from '../company.ts';

const FREE_MAIL = new Set<string>(freeMailDomains as string[]);

/** The methods a claim can use where email cannot: the company's DNS and website. */
const OTHER_METHODS = 'use dns, meta or file';

/**
 * Why a listing cannot be claimed by email, or null when it can: its website must sit on a
 * registrable domain of its own (not a public suffix, an IP address or a domain under a
 * private-section suffix such as github.io or vercel.app, whose mail is the host's) that is not
 * a free-mail provider, where anyone can have an address. Each reason names the other methods.
 */
export function emailClaimRefusal(listingUrl: string): string | null {
  const company = companyOf(listingUrl);
  if (!company.domain) {
    return `The website's host ${company.host} is not a registrable domain (a public suffix or an address), so no address there proves ownership; ${OTHER_METHODS}.`;
  }
  if (company.privateSuffix) {
    return `The website ${company.domain} is hosted under the shared domain ${company.privateSuffix}, where no address is the company's; ${OTHER_METHODS}.`;
  }
  if (FREE_MAIL.has(company.domain)) {
    return `${company.domain} is a free-mail provider where anyone can have an address; ${OTHER_METHODS}.`;
  }
  return null;
}

/** The registrable domain an email claim's address must be at (or under) for this listing. */
export function emailClaimDomain(listingUrl: string): string {
  return companyOf(listingUrl).domain ?? '';
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
