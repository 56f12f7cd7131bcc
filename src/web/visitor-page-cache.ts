import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import type { Compressed } from './compressed.ts';

/** A public page as every visitor without a session gets it, ready to send (compressed too: every browser asks). */
export interface KeptPage extends Compressed {
  /**
   * The headers its render set that are the same for every visitor: the type and the security
   * headers, the CSP among them (its inline elements named by hash). Not those of one request or one
   * encoding (request id, length, encoding, Vary).
   */
  headers: Record<string, string>;
}

/**
 * Where a page was asked for (host headers and URL as sent, src/web/page-cache.ts) and the kept page
 * it was: the requests the lane in front of the app answers without routing them.
 */
export interface KeptAddress {
  key: string;
  /** What a visit to the page does besides sending it (a listing page counts a view). */
  visited?: (ctx: Context) => void;
}

/** What the kept pages of one process may hold: about 3,000 listing pages with their gzip and brotli. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * Aged copies rendered anew at once, beside the visitors' requests (the rest wait for a later
 * visit): serving visitors comes first (with 4, bench:pages served 11 % fewer listing pages than with 2).
 */
const MAX_REFRESHES = 2;

/** Addresses remembered: a few per kept page (with and without a query, other hosts of the site). */
const MAX_ADDRESSES = 20_000;

/**
 * The public pages one api process keeps for visitors (src/web/page-cache.ts), built by
 * createCaches. A copy is fresh for `ttlMs`. An aged copy is still sent, and the page is rendered
 * anew beside the request (stale-while-revalidate: a visitor never waits for a render a copy
 * could answer). Concurrent visitors of a page nobody has kept wait for one render. `ttlMs` 0
 * keeps nothing.
 */
export class VisitorPageCache {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #pages = new LRUCache<string, { page: KeptPage; expires: number }>({
    maxSize: MAX_BYTES,
    sizeCalculation: ({ page }) => page.plain.length + page.gzip.length + page.br.length + 1024,
  });
  readonly #addresses = new LRUCache<string, KeptAddress>({ max: MAX_ADDRESSES });
  /** Renders under way; one that a forget() reached is not kept (it may show what was forgotten). */
  readonly #rendering = new Map<string, { page: Promise<KeptPage | null>; keep: boolean }>();
  #refreshes = 0;

  /** `now` is the clock the copies age by (milliseconds; tests pass their own). */
  constructor(ttlMs: number, now: () => number = () => performance.now()) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  get enabled(): boolean {
    return this.#ttlMs > 0;
  }

  /**
   * The kept page of `key`. Without one, what `render` (the request's own render) makes of it,
   * shared with concurrent callers; null is a page not to keep (a redirect). With an aged one,
   * that copy, while `refresh` (a render apart from the request) makes the next. A render that
   * fails keeps nothing and forgets the copy (the page may be gone: its next visitor renders it).
   */
  get(key: string, render: () => Promise<KeptPage | null>, refresh: () => Promise<KeptPage | null>): KeptPage | Promise<KeptPage | null> {
    const kept = this.#pages.get(key);
    if (kept && kept.expires > this.#now()) return kept.page;
    const pending = this.#rendering.get(key);
    if (kept) {
      if (!pending && this.#refreshes < MAX_REFRESHES) {
        this.#refreshes++;
        const done = () => this.#refreshes--;
        this.#start(key, refresh()).then(done, done);
      }
      return kept.page;
    }
    return pending ? pending.page : this.#start(key, render());
  }

  /** Remembers that a request to `address` was answered with the page kept under `to.key`. */
  remember(address: string, to: KeptAddress): void {
    this.#addresses.set(address, to);
  }

  /**
   * The page a request to `address` was last answered with, while its visitors may get it without
   * the route: fresh, or aged while its next render is under way or no other can start (else the
   * route sends the aged copy and starts the render).
   */
  keptAt(address: string): { page: KeptPage; visited?: (ctx: Context) => void } | undefined {
    const to = this.#addresses.get(address);
    const kept = to && this.#pages.get(to.key);
    if (!kept) return undefined;
    const aged = kept.expires <= this.#now();
    if (aged && !this.#rendering.has(to.key) && this.#refreshes < MAX_REFRESHES) return undefined;
    return { page: kept.page, visited: to.visited };
  }

  #start(key: string, page: Promise<KeptPage | null>): Promise<KeptPage | null> {
    const entry = { page, keep: true };
    this.#rendering.set(key, entry);
    const settle = (rendered: KeptPage | null) => {
      if (this.#rendering.get(key) === entry) this.#rendering.delete(key);
      if (!entry.keep) return;
      if (rendered) this.#pages.set(key, { page: rendered, expires: this.#now() + this.#ttlMs });
      else this.#pages.delete(key);
    };
    page.then(settle, () => settle(null));
    return page;
  }

  /** Forgets the pages whose keys `match` (all without one), and does not keep their renders under way. */
  forget(match: (key: string) => boolean = () => true): void {
    for (const key of [...this.#pages.keys()]) if (match(key)) this.#pages.delete(key);
    for (const [key, entry] of this.#rendering) {
      if (!match(key)) continue;
      entry.keep = false;
      this.#rendering.delete(key);
    }
  }

  get size(): number {
    return this.#pages.size;
  }
}

/** The key of a listing's own page among the kept pages of its site. */
export const listingPageKey = (slug: string) => `listing:${slug.toLowerCase()}`;

/**
 * The notice hook: forgets the kept pages a change shows on. With `slug`, that listing's own page
 * and every page that ranks listings (all kept pages but the other listings' own); without, every
 * page. Only the pages of `site` when it is given (keys begin with the site's id).
 */
export function forgetChanged(pages: VisitorPageCache, change: { site?: number | null; slug?: string }): void {
  const prefix = change.site == null ? '' : `${change.site}:`;
  const own = change.slug === undefined ? null : `:${listingPageKey(change.slug)}`;
  pages.forget((key) => key.startsWith(prefix) && (own === null || !key.includes(':listing:') || key.endsWith(own)));
}
