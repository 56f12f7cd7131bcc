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
  readonly #rendering = new Map<string, Promise<KeptPage | null>>();
  /** Moves on each clear(): a render begun before it is not kept (it may show what was forgotten). */
  #generation = 0;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  get enabled(): boolean {
    return this.#ttlMs > 0;
  }

  /**
   * The kept page of `key`, or what `render` makes of it (null: a page not to keep, such as a
   * 404). The caller that renders gets its own render's promise, and can tell it apart by that.
   */
  get(key: string, render: () => Promise<KeptPage | null>): KeptPage | Promise<KeptPage | null> {
    const kept = this.#pages.get(key);
    if (kept && kept.expires > performance.now()) return kept.page;
    const pending = this.#rendering.get(key);
    if (pending) return kept?.page ?? pending;
    const generation = this.#generation;
    const rendered = render().then((page) => {
      if (generation === this.#generation) {
        if (page) this.#pages.set(key, { page, expires: performance.now() + this.#ttlMs });
        else this.#pages.delete(key);
      }
      return page;
    });
    this.#rendering.set(key, rendered);
    const forget = () => {
      if (this.#rendering.get(key) === rendered) this.#rendering.delete(key);
    };
    rendered.then(forget, forget);
    return rendered;
  }

  /** Forgets every page (after a vote in this process, so the counts visitors see move at once). */
  clear(): void {
    this.#generation++;
    this.#pages.clear();
    this.#rendering.clear();
  }

  get size(): number {
    return this.#pages.size;
  }
}
