import { LRUCache } from 'lru-cache';

/** A public page as every visitor without a session gets it, ready to send. */
export interface KeptPage {
  /** The page's Content-Security-Policy (its inline elements named by hash, so the same for all). */
  csp: string;
  html: Buffer;
  /** The same bytes gzipped once, for the clients that ask for it (every browser does). */
  gzip: Buffer;
}

/** What the kept pages of one process may hold: about 4,000 listing pages with their gzip. */
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * The public pages one api process keeps for visitors (src/web/page-cache.ts), built by
 * createCaches. A copy is fresh for `ttlMs`; after that the first visitor renders the page again
 * and the visitors meanwhile get the old copy (so a busy page never makes a crowd wait), and
 * concurrent visitors of a page nobody has kept wait for one render. `ttlMs` 0 keeps nothing.
 */
export class VisitorPageCache {
  readonly #ttlMs: number;
  readonly #pages = new LRUCache<string, { page: KeptPage; expires: number }>({
    maxSize: MAX_BYTES,
    sizeCalculation: ({ page }) => page.html.length + page.gzip.length + page.csp.length + 64,
  });
  /** Renders under way; one that a forget() reached is not kept (it may show what was forgotten). */
  readonly #rendering = new Map<string, { page: Promise<KeptPage | null>; keep: boolean }>();

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  get enabled(): boolean {
    return this.#ttlMs > 0;
  }

  /**
   * The kept page of `key`, or what `render` makes of it (null: a page not to keep, such as a
   * redirect). Concurrent callers without a copy share the one render.
   */
  get(key: string, render: () => Promise<KeptPage | null>): KeptPage | Promise<KeptPage | null> {
    const kept = this.#pages.get(key);
    if (kept && kept.expires > performance.now()) return kept.page;
    const pending = this.#rendering.get(key);
    if (pending) return kept?.page ?? pending.page;
    const entry = { page: render(), keep: true };
    this.#rendering.set(key, entry);
    const settle = (page: KeptPage | null) => {
      if (this.#rendering.get(key) === entry) this.#rendering.delete(key);
      if (!entry.keep) return;
      if (page) this.#pages.set(key, { page, expires: performance.now() + this.#ttlMs });
      else this.#pages.delete(key);
    };
    entry.page.then(settle, () => settle(null));
    return entry.page;
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
