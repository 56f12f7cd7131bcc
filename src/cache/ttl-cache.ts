/**
 * A small in-process cache of async results with a time to live, least recently used eviction
 * and single flight: concurrent misses of one key share one load. A failed load is not kept.
 */
export class TtlCache<V> {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { value: Promise<V>; expires: number }>();

  constructor(options: { ttlMs: number; maxEntries: number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, load: () => PromiseLike<V>): Promise<V> {
    if (this.#ttlMs <= 0) return Promise.resolve(load());
    const now = Date.now();
    const hit = this.#entries.get(key);
    this.#entries.delete(key);
    if (hit && hit.expires > now) {
      this.#entries.set(key, hit); // most recently used goes last
      return hit.value;
    }
    // Settled once into a real promise: a knex query builder is a thenable that runs its query
    // again on every await, so kept as it is, every hit would go to the database.
    const entry = { value: Promise.resolve(load()), expires: now + this.#ttlMs };
    this.#entries.set(key, entry);
    entry.value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
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

const perOwner = new WeakMap<object, Map<string, TtlCache<unknown>>>();

/**
 * The cache named `name` of one owner (a database pool): each api process keeps its own, and two
 * pools in one process (tests) never share entries.
 */
export function cacheOf<V>(owner: object, name: string, options: { ttlMs: number; maxEntries: number }): TtlCache<V> {
  let caches = perOwner.get(owner);
  if (!caches) perOwner.set(owner, (caches = new Map()));
  let cache = caches.get(name);
  if (!cache) caches.set(name, (cache = new TtlCache<unknown>(options)));
  return cache as TtlCache<V>;
}
