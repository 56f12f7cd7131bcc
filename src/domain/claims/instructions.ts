import { randomBytes } from 'node:crypto';

/** The four ways to prove ownership of a listed company. */
export const CLAIM_METHODS = ['dns', 'meta', 'file', 'email'] as const;
export type ClaimMethod = (typeof CLAIM_METHODS)[number];

/** Methods checked by looking at the company's DNS or website (verify_claim works on these). */
export const CHECKED_METHODS: readonly ClaimMethod[] = ['dns', 'meta', 'file'];

export const DNS_LABEL = '_listing-directory-challenge';
export const DNS_VALUE_PREFIX = 'listing-directory-verification=';
export const META_NAME = 'listing-directory-verification';
export const FILE_PATH = '/.well-known/listing-directory-verification.txt';

/** A claim token: 160 random bits, URL- and DNS-safe (base64url has no `=`, `+` or `/`). */
export function newClaimToken(): string {
  return `ldv_${randomBytes(20).toString('base64url')}`;
}

export interface ClaimInstructions {
  text: string;
  token: string;
  record?: { type: 'TXT'; name: string; value: string };
  meta?: { html: string };
  file?: { url: string; content: string };
  email?: { sent_to: string };
}

/** Where a check looks: the DNS name, the homepage and the file of a listing's website. */
export function claimTargets(listingUrl: string) {
  const url = new URL(listingUrl);
  return {
    host: url.hostname,
    dnsName: `${DNS_LABEL}.${url.hostname}`,
    homepage: url.href,
    // The listing's own origin (its scheme and port): https://{host} for every real listing.
    fileUrl: `${url.origin}${FILE_PATH}`,
  };
}

/** What the claimant publishes (or where the link went), structured and as readable text. */
export function claimInstructions(
  claim: { method: ClaimMethod; token: string; email: string | null },
  listingUrl: string,
): ClaimInstructions {
  const where = claimTargets(listingUrl);
  const token = claim.token;
  switch (claim.method) {
    case 'dns': {
      const value = `${DNS_VALUE_PREFIX}${token}`;
      return {
        text: `Add a DNS TXT record named ${where.dnsName} with the value ${value}. Other TXT records may stay; DNS changes can take a while to show.`,
        token,
        record: { type: 'TXT', name: where.dnsName, value },
      };
    }
    case 'meta': {
      const html = `<meta name="${META_NAME}" content="${token}">`;
      return { text: `Put ${html} inside the <head> of ${where.homepage}.`, token, meta: { html } };
    }
    case 'file':
      return {
        text: `Publish a file at ${where.fileUrl} whose content is ${token} (surrounding whitespace is ignored).`,
        token,
        file: { url: where.fileUrl, content: token },
      };
    case 'email':
      return {
        text: `We mailed a link to ${claim.email}. Open it while signed in to this account to verify; it works once, until the claim expires (7 days at most).`,
        token,
        email: { sent_to: claim.email! },
      };
  }
}
