import { CrawlError, type CrawlOptions } from '../crawl/types.ts';
import { loadHtml } from '../crawl/cheerio.ts';
import { createCrawlAgent, fetchPage, type FetchedPage } from '../crawl/fetch-page.ts';
import { companyKey } from '../company.ts';
import { META_NAME } from './instructions.ts';
import { outcome, quoted, type CheckResult } from './check-result.ts';

/** Limits of a meta or file check, so a claimant's site cannot hold a check up: 5 redirects within the site, 10 s, 1 MB. */
export const CLAIM_FETCH_LIMITS = { maxRedirects: 5, timeoutMs: 10_000, maxBytes: 1_000_000 };

/** Failures worth retrying: the site may be back in a minute. The rest are `not_found`. */
const TRANSIENT = new Set(['dns_failure', 'connection_failed', 'timeout']);

/** Looks for `<meta name="listing-directory-verification" content="{token}">` in the homepage's `<head>`. */
export async function checkMetaTag(homepage: string, token: string, crawl: CrawlOptions): Promise<CheckResult> {
  return guardedCheck(homepage, crawl, {}, (page) => {
    // parse5 places tags the way browsers do: a meta tag after body content is in <body>.
    const $ = loadHtml(page.body);
    const contents = $('head meta')
      .filter((_, el) => ($(el).attr('name') ?? '').trim().toLowerCase() === META_NAME)
      .map((_, el) => ($(el).attr('content') ?? '').trim())
      .get();
    if (contents.includes(token)) return outcome('found', `The meta tag was found in the <head> of ${page.url}.`);
    if (contents.length > 0) {
      return outcome(
        'not_found',
        `The <head> of ${page.url} has ${META_NAME} meta tags with other content: ${contents
          .slice(0, 3)
          .map((c) => quoted(c))
          .join(', ')}.`,
      );
    }
    return outcome('not_found', `No ${META_NAME} meta tag in the <head> of ${page.url} (HTTP ${page.status}).`);
  });
}

/** Fetches the verification file; found when its content, trimmed, is the token. */
export async function checkVerificationFile(fileUrl: string, token: string, crawl: CrawlOptions): Promise<CheckResult> {
  const options = { accept: 'text/plain, */*;q=0.5', acceptContentType: () => true };
  return guardedCheck(fileUrl, crawl, options, (page) => {
    const content = page.body.trim();
    if (content === token) return outcome('found', `${page.url} holds the token.`);
    return outcome(
      'not_found',
      `${page.url} answered HTTP ${page.status} with ${content ? quoted(content) : 'an empty body'}, not the token.`,
    );
  });
}

/**
 * One fetch through the crawler's SSRF guard, redirects only within the registrable domain of
 * `url`; 4xx is not_found, 5xx and network trouble are error.
 */
async function guardedCheck(
  url: string,
  crawl: CrawlOptions,
  extra: { accept?: string; acceptContentType?: (t: string) => boolean },
  judge: (page: FetchedPage) => CheckResult,
): Promise<CheckResult> {
  const options: CrawlOptions = {
    ...crawl,
    maxRedirects: CLAIM_FETCH_LIMITS.maxRedirects,
    timeoutMs: Math.min(crawl.timeoutMs, CLAIM_FETCH_LIMITS.timeoutMs),
    maxBytes: CLAIM_FETCH_LIMITS.maxBytes,
  };
  const site = companyKey(url);
  const agent = createCrawlAgent(crawl.allowPrivateNetworks);
  try {
    const page = await fetchPage(url, options, agent, { ...extra, allowHttpErrors: true, beforeRequest: sameSiteOnly(url, site) });
    if (page.status >= 500) return outcome('error', `${page.url} answered HTTP ${page.status}; we try again later.`);
    if (page.status >= 400) return outcome('not_found', `${page.url} answered HTTP ${page.status}.`);
    return judge(page);
  } catch (err) {
    if (!(err instanceof CrawlError)) throw err;
    return outcome(TRANSIENT.has(err.code) ? 'error' : 'not_found', err.message);
  } finally {
    await agent.close();
  }
}

/** A redirect may not leave the company's website: another company could vouch for anyone. */
function sameSiteOnly(start: string, site: string) {
  return async (next: string) => {
    if (companyKey(next) === site) return;
    throw new CrawlError(
      'redirect_refused',
      `${start} redirected to ${next}, outside ${site}; only redirects within ${site} are followed.`,
    );
  };
}
