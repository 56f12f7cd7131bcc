/**
 * The lexemes the in-memory index has seen, each with an id for life (postings and pool entries
 * name lexemes by id), and the ids in string order so that a typed prefix finds every lexeme it
 * starts. During a bulk load the order is made once at the end (sort), not per lexeme.
 */
export class Lexicon {
  readonly #lexemes: string[] = [];
  readonly #ids = new Map<string, number>();
  /** Lexeme ids in string order, for prefixes (from the first sort on). */
  #sorted: number[] = [];
  #sorting = false;

  get size(): number {
    return this.#lexemes.length;
  }

  id(lexeme: string): number | undefined {
    return this.#ids.get(lexeme);
  }

  /** The lexeme's id; a new lexeme gets the next one. */
  intern(lexeme: string): number {
    let id = this.#ids.get(lexeme);
    if (id !== undefined) return id;
    id = this.#lexemes.length;
    this.#lexemes.push(lexeme);
    this.#ids.set(lexeme, id);
    if (this.#sorting) this.#sorted.splice(this.#position(lexeme), 0, id);
    return id;
  }

  /** Orders the lexemes seen so far; from now on each new one is put in its place. */
  sort(): void {
    this.#sorted = this.#lexemes.map((_, i) => i).sort((a, b) => compare(this.#lexemes[a]!, this.#lexemes[b]!));
    this.#sorting = true;
  }

  /** Ids of every lexeme starting with `prefix`. */
  starting(prefix: string): number[] {
    const ids: number[] = [];
    for (let i = this.#position(prefix); i < this.#sorted.length && this.#lexemes[this.#sorted[i]!]!.startsWith(prefix); i++) {
      ids.push(this.#sorted[i]!);
    }
    return ids;
  }

  /** Where `text` goes in the string order. */
  #position(text: string): number {
    let [lo, hi] = [0, this.#sorted.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(this.#lexemes[this.#sorted[mid]!]!, text) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Strings in UTF-16 order: any order in which each prefix's strings are contiguous will do. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
