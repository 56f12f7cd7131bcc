import { LRUCache } from 'lru-cache';

/** However quiet the notices, an entry is read again after this long. */
const MAX_AGE_MS = 5 * 60_000;
/** Forgets remembered for loads under way; a load that outlives more of them keeps nothing. */
const FORGETS_REMEMBERED = 4096;
/** Stands for "everyone" among the remembered forgets. */
const EVERYONE = -1;

/**
 * What one api process keeps of signed-in people (their sessions, their own state), trusted only
 * while change notices arrive: a `person` notice (sent by triggers at the commit of any write to
 * that state) forgets the person's entries, and while the notice connection is down nothing is
 * read from here or kept. A load races the notices: one that began before the person (or
 * everyone) was forgotten keeps nothing, since it may have read what the forget was about.
 */
export class PeopleCache<K extends string | number, V extends object> {
  readonly #entries: LRUCache<K, { user: number; value: V }>;
  readonly #byUser = new Map<number, Set<K>>();
  readonly #forgets = new Int32Array(FORGETS_REMEMBERED);
  readonly #capacity: number;
  #generation = 0;
  #trusted = false;

  /** `capacity` entries at most (the least recently read go first); 0 keeps nothing. */
  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#entries = new LRUCache({
      max: Math.max(1, capacity),
      ttl: MAX_AGE_MS,
      dispose: ({ user }, key) => this.#unlink(user, key),
    });
  }

  /** Whether notices arrive: set by the process's change listener (false forgets everything). */
  trust(trusted: boolean): void {
    this.forget();
    this.#trusted = trusted && this.#capacity > 0;
  }

  get(key: K): V | undefined {
    return this.#trusted ? this.#entries.get(key)?.value : undefined;
  }

  /** Where a load starts: hand it to keep() with what it read. */
  begin(): number {
    return this.#generation;
  }

  /** Keeps what a load that began at `since` read for `user`, unless a notice for them came meanwhile. */
  keep(key: K, user: number, value: V, since: number): void {
    if (!this.#trusted || this.#forgottenSince(user, since)) return;
    this.#entries.set(key, { user, value });
    let keys = this.#byUser.get(user);
    if (!keys) this.#byUser.set(user, (keys = new Set()));
    keys.add(key);
  }

  /** Forgets one person's entries, or everyone's. */
  forget(user?: number): void {
    this.#forgets[this.#generation++ % FORGETS_REMEMBERED] = user ?? EVERYONE;
    if (user === undefined) {
      this.#entries.clear();
      this.#byUser.clear();
      return;
    }
    for (const key of this.#byUser.get(user) ?? []) this.#entries.delete(key);
    this.#byUser.delete(user);
  }

  get size(): number {
    return this.#entries.size;
  }

  #forgottenSince(user: number, since: number): boolean {
    if (this.#generation - since > FORGETS_REMEMBERED) return true;
    for (let g = since; g < this.#generation; g++) {
      const forgotten = this.#forgets[g % FORGETS_REMEMBERED];
      if (forgotten === user || forgotten === EVERYONE) return true;
    }
    return false;
  }

  #unlink(user: number, key: K): void {
    const keys = this.#byUser.get(user);
    keys?.delete(key);
    if (keys?.size === 0) this.#byUser.delete(user);
  }
}
