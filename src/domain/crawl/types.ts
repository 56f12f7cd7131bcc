import type { CompanyFacts, Evidence, Faq } from '../fields.ts';
import type { CrawlOptions } from '../../config/config.ts';

// The crawler drafts values of the contract's own field schemas; their types come from them.
export type { CompanyFacts, Evidence, Faq };

export type { CrawlOptions };

/** Stable reasons a crawl fails; shown to owners on the draft as `failure_code`. */
export type CrawlFailureCode =
  | 'invalid_url'
  | 'dns_failure'
  | 'address_refused'
  | 'connection_failed'
  | 'timeout'
  | 'http_error'
  | 'not_html'
  | 'too_large'
  | 'too_many_redirects'
  | 'redirect_refused'
  | 'robots_disallowed';

/** A crawl that cannot produce a draft. `message` is safe to show to the owner. */
export class CrawlError extends Error {
  readonly code: CrawlFailureCode;
  constructor(code: CrawlFailureCode, message: string) {
    super(message);
    this.name = 'CrawlError';
    this.code = code;
  }
}

/** The crawl failure of an address that is not http(s), or carries a user name or password. */
export const invalidCrawlUrl = (url: string) =>
  new CrawlError('invalid_url', `"${url}" is not an http or https address without a user name or password.`);

/** One HTML page that was fetched. */
export interface CrawledPage {
  /** Final URL after redirects. */
  url: string;
  html: string;
}

/** The pages of one site: the home page first, then same-site pages such as about, pricing, FAQ. */
export interface CrawlResult {
  /** Final URL of the home page after redirects. */
  url: string;
  pages: CrawledPage[];
}

/** Fields the crawler drafts for a listing. */
export interface DraftFields {
  name: string | null;
  /** At most LIMITS.headline characters. */
  headline: string | null;
  /** At most LIMITS.summary characters. */
  summary: string | null;
  logo_url: string | null;
  image_url: string | null;
  facts: CompanyFacts;
  /** Platform key (twitter, linkedin, github, facebook, instagram, youtube, tiktok, ...) → URL. */
  socials: Record<string, string>;
  faqs: Faq[];
  /** Category slugs from CATEGORY_SLUGS, best guess first, at most 3. */
  categories: string[];
  contact_email: string | null;
}

/** Evidence per drafted field: keys are DraftFields keys, `facts.<key>` or `socials.<platform>`. */
export type DraftEvidence = Record<string, Evidence>;

export interface DraftContent {
  fields: DraftFields;
  evidence: DraftEvidence;
}
