import { LRUCache } from 'lru-cache';

/** How long entries live and how many are kept; `ttlMs` 0 turns the cache off, Infinity keeps entries for the process's life. */
export interface TtlCacheOptions {
  ttlMs: number;
  maxEntries: number;
  /**
   * Stale-while-revalidate: an entry past its time is still answered while one load makes the
   * next (no caller waits for a reload a kept value could answer). A failed reload forgets it.
   */
  serveStale?: boolean;
  /** Milliseconds the entries age by. @default performance.now (monotonic); tests pass a clock they move. */
  now?: () => number;
}

interface Entry<V> {
  value: Promise<V>;
  expires: number;
  reloading?: boolean;
}

/**
 * An in-process cache of async results (lru-cache: least recently used eviction; a time to live)
 * with single flight: concurrent misses of one key share one load. A failed load is not kept.
 * Built once by createServices (src/services.ts) and handed to whoever reads through it.
 */
export class TtlCache<V> {
  readonly #ttlMs: number;
  readonly #serveStale: boolean;
  readonly #now: () => number;
  readonly #entries: LRUCache<string, Entry<V>>;

  constructor(options: TtlCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#serveStale = options.serveStale ?? false;
    this.#now = options.now ?? (() => performance.now());
    this.#entries = new LRUCache({ max: Math.max(1, options.maxEntries) });
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, load: () => PromiseLike<V>): Promise<V> {
    if (this.#ttlMs <= 0) return Promise.resolve(load());
    const hit = this.#entries.get(key);
    if (hit && hit.expires > this.#now()) return hit.value;
    if (!hit || !this.#serveStale) return this.#load(key, load);
    if (!hit.reloading) {
      hit.reloading = true;
      // Settled once before it replaces the kept value, so callers meanwhile get the old one.
      const value = Promise.resolve(load());
      value.then(
        () => {
          if (this.#entries.peek(key) === hit) this.#entries.set(key, { value, expires: this.#now() + this.#ttlMs });
        },
        () => {
          if (this.#entries.peek(key) === hit) this.#entries.delete(key);
        },
      );
    }
    return hit.value;
  }

  #load(key: string, load: () => PromiseLike<V>): Promise<V> {
    // Settled once into a real promise: a knex query builder is a thenable that runs its query
    // again on every await, so kept as it is, every hit would go to the database.
    const entry: Entry<V> = { value: Promise.resolve(load()), expires: this.#now() + this.#ttlMs };
    this.#entries.set(key, entry);
    entry.value.catch(() => {
      if (this.#entries.peek(key) === entry) this.#entries.delete(key);
    });
    return entry.value;
  }

  /** Forgets one key (its next get loads again). */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
  }
}
