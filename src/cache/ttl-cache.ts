import { LRUCache } from 'lru-cache';

/** How long entries live and how many are kept; `ttlMs` 0 turns the cache off, Infinity keeps entries for the process's life. */
export interface TtlCacheOptions {
  ttlMs: number;
  maxEntries: number;
}

/**
 * An in-process cache of async results (lru-cache: time to live, least recently used eviction)
 * with single flight: concurrent misses of one key share one load. A failed load is not kept.
 * Built once by createServices (src/service-caches.ts) and handed to whoever reads through it.
 */
export class TtlCache<V> {
  readonly #enabled: boolean;
  readonly #entries: LRUCache<string, { value: Promise<V> }>;

  constructor(options: TtlCacheOptions) {
    this.#enabled = options.ttlMs > 0;
    this.#entries = new LRUCache({
      max: Math.max(1, options.maxEntries),
      ...(Number.isFinite(options.ttlMs) && options.ttlMs > 0 ? { ttl: options.ttlMs } : {}),
    });
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, load: () => PromiseLike<V>): Promise<V> {
    if (!this.#enabled) return Promise.resolve(load());
    const hit = this.#entries.get(key);
    if (hit) return hit.value;
    // Settled once into a real promise: a knex query builder is a thenable that runs its query
    // again on every await, so kept as it is, every hit would go to the database.
    const entry = { value: Promise.resolve(load()) };
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
