import { createRequire } from 'node:module';
import type { Dispatcher } from 'undici';
import { fetchPage } from './fetch-page.ts';
import { CrawlError } from './types.ts';
import type { CrawlOptions } from './types.ts';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
// robots-parser is CommonJS and its typings declare an ES default export, which nodenext sees
// as the module object; require() gives the function itself.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, robotstxt: string) => Robot;

export interface RobotsRules {
  /** The robots.txt URL that was consulted. */
  url: string;
  isAllowed(url: string): boolean;
  /** Why everything is disallowed (5xx robots.txt), or null. */
  blockedReason: string | null;
}

/** Largest robots.txt read (RFC 9309 asks crawlers to parse at least 500 KiB). */
const ROBOTS_MAX_BYTES = 512 * 1024;

/**
 * Fetches and parses the robots.txt of the URL's origin (RFC 9309): 4xx allows everything,
 * 5xx disallows everything, redirects are followed (at most 5). Network failures (DNS,
 * refused connection, refused address, timeout) are thrown: the site itself is unreachable.
 */
export async function fetchRobots(siteUrl: string, options: CrawlOptions, agent: Dispatcher): Promise<RobotsRules> {
  const robotsUrl = new URL('/robots.txt', siteUrl).href;
  let res;
  try {
    res = await fetchPage(robotsUrl, { ...options, maxBytes: Math.max(options.maxBytes, ROBOTS_MAX_BYTES) }, agent, {
      accept: 'text/plain',
      acceptContentType: () => true,
      allowHttpErrors: true,
      truncate: true,
      maxRedirects: Math.min(5, options.maxRedirects),
    });
  } catch (err) {
    if (err instanceof CrawlError && (err.code === 'too_many_redirects' || err.code === 'invalid_url')) {
      // RFC 9309: a robots.txt that cannot be reached by redirects is treated as unavailable (4xx).
      return allowAll(robotsUrl);
    }
    throw err;
  }
  if (res.status >= 500) {
    const reason = `The site's robots.txt (${robotsUrl}) answered with HTTP status ${res.status}, so crawling is not permitted until it is available.`;
    return { url: robotsUrl, isAllowed: () => false, blockedReason: reason };
  }
  if (res.status >= 400) return allowAll(robotsUrl);
  const robots = robotsParser(res.url, res.body);
  const finalOrigin = new URL(res.url).origin;
  return {
    url: robotsUrl,
    blockedReason: null,
    isAllowed(url: string): boolean {
      // Rules of a redirected robots.txt apply to the original origin too.
      const target = new URL(url);
      const asFinal = new URL(target.pathname + target.search, finalOrigin).href;
      return robots.isAllowed(asFinal, options.userAgent) !== false;
    },
  };
}

function allowAll(url: string): RobotsRules {
  return { url, isAllowed: () => true, blockedReason: null };
}

/** Throws robots_disallowed when the rules forbid fetching `url`. */
export function assertRobotsAllow(rules: RobotsRules, url: string): void {
  if (rules.isAllowed(url)) return;
  throw new CrawlError('robots_disallowed', rules.blockedReason ?? `The site's robots.txt (${rules.url}) does not allow crawling ${url}.`);
}
