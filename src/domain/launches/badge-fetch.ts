import type { Dispatcher } from 'undici';
import { companyKey } from '../company.ts';
import { createCrawlAgent, fetchPage } from '../crawl/fetch-page.ts';
import { CrawlError, type CrawlOptions } from '../crawl/types.ts';
import { detectBadge, type BadgeTarget } from './badge-detect.ts';

/** Badge pages: 5 redirects within the company's website (domain/company.ts), 10 s, the first 1 MB. */
export const BADGE_FETCH_LIMITS = { maxRedirects: 5, timeoutMs: 10_000, maxBytes: 1_000_000 } as const;

export type BadgeStatus = 'present' | 'missing' | 'inconclusive';

/** What one fetch of the owner's page found. */
export interface BadgeFetchResult {
  status: BadgeStatus;
  detail: string;
  finalUrl: string | null;
  httpStatus: number | null;
  rel: string[];
}

/** Answers that say "try again later", never "the badge is gone". */
const RETRY_LATER = new Set([401, 403, 408, 425, 429]);
/** Network trouble is not the owner removing the badge. */
const INCONCLUSIVE_CODES = new Set(['timeout', 'connection_failed', 'dns_failure', 'address_refused']);

/** The guarded agent badge checks fetch through (connections checked by the crawler's address guard); one per process, built by createServices at its first use. */
export function createBadgeAgent(crawl: Pick<CrawlOptions, 'allowPrivateNetworks'>): Dispatcher {
  return createCrawlAgent(crawl.allowPrivateNetworks);
}

class OffDomainRedirect extends Error {}

/**
 * Fetches the owner's page through the crawler's SSRF guard and looks for the badge. Redirects
 * may not leave the company of `pageUrl` (domain/company.ts); only the first 1 MB is read.
 */
export async function fetchBadge(pageUrl: string, target: BadgeTarget, crawl: CrawlOptions, agent: Dispatcher): Promise<BadgeFetchResult> {
  const domain = companyKey(pageUrl);
  const options = { ...crawl, ...BADGE_FETCH_LIMITS, timeoutMs: Math.min(crawl.timeoutMs, BADGE_FETCH_LIMITS.timeoutMs) };
  try {
    const page = await fetchPage(pageUrl, options, agent, {
      allowHttpErrors: true,
      truncate: true,
      beforeRequest: async (url) => {
        if (companyKey(url) !== domain)
          throw new OffDomainRedirect(`The page redirects to ${url}, outside ${domain}; the badge must be on your own site.`);
      },
    });
    return fromResponse(page, target);
  } catch (err) {
    if (err instanceof OffDomainRedirect) return result('missing', err.message);
    if (err instanceof CrawlError) return result(INCONCLUSIVE_CODES.has(err.code) ? 'inconclusive' : 'missing', err.message);
    throw err;
  }
}

function fromResponse(page: { url: string; status: number; body: string }, target: BadgeTarget): BadgeFetchResult {
  const seen = { finalUrl: page.url, httpStatus: page.status };
  if (RETRY_LATER.has(page.status) || page.status >= 500) {
    return { ...result('inconclusive', `${page.url} answered with HTTP status ${page.status}; we will check again.`), ...seen };
  }
  if (page.status < 200 || page.status > 299) {
    return { ...result('missing', `${page.url} answered with HTTP status ${page.status}.`), ...seen };
  }
  const found = detectBadge(page.body, page.url, target);
  return { status: found.present ? 'present' : 'missing', detail: found.detail, rel: found.rel, ...seen };
}

const result = (status: BadgeStatus, detail: string): BadgeFetchResult => ({ status, detail, finalUrl: null, httpStatus: null, rel: [] });
