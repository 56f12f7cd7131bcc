/**
 * Where the service reads the time. Rules that depend on "now" take it from a Clock given to
 * them (services, operation context) instead of reading the system time, so tests move time by
 * setting a clock rather than by sleeping. Workflows keep Temporal's own time.
 */
export interface Clock {
  now(): Date;
}

/** The machine's time. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still at a given instant until moved; for tests and benchmarks. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(at: Date | string) {
    this.#ms = new Date(at).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  /** Sets the clock to an instant. */
  set(at: Date | string): void {
    this.#ms = new Date(at).getTime();
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.#ms += ms;
  }
}
