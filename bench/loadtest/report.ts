/** The load test's printout: requests and latencies per kind, errors by status, faults, reconciliation. */
import type { Check } from './reconcile.ts';
import { MIX, type Outcome } from './traffic.ts';

/** A fault and the time it covered, ms since the traffic started. */
export interface FaultWindow {
  what: string;
  from: number;
  to: number;
}

/** Errors answered this long after PostgreSQL is back still count as the outage's (pools reconnecting). */
export const OUTAGE_GRACE_MS = 10_000;

const ok = (o: Outcome) => typeof o.status === 'number' && o.status < 400;

/** Whether a request overlapped the database outage (or its grace period). */
export function duringOutage(o: Outcome, faults: FaultWindow[]): boolean {
  return faults.some((f) => f.what.startsWith('PostgreSQL') && o.start < f.to + OUTAGE_GRACE_MS && o.end > f.from);
}

export function printTraffic(
  outcomes: Outcome[],
  sendingSeconds: number,
  seconds: number,
  faults: FaultWindow[],
  kinds: string[] = MIX.map(([kind]) => kind),
): void {
  const rate = (outcomes.length / sendingSeconds).toFixed(1);
  console.log(`\n${outcomes.length} requests sent in ${sendingSeconds} s (${rate} req/s), the last answered after ${seconds.toFixed(0)} s`);
  console.log(`kind        requests      2xx   errors   p50 ms   p99 ms`);
  const row = (name: string, list: Outcome[]) => {
    const ms = list.map((o) => o.end - o.start).sort((a, b) => a - b);
    const errors = list.filter((o) => !ok(o)).length;
    console.log(
      `${name.padEnd(10)} ${String(list.length).padStart(9)} ${String(list.length - errors).padStart(8)} ${String(errors).padStart(8)} ${at(ms, 0.5).padStart(8)} ${at(ms, 0.99).padStart(8)}`,
    );
  };
  for (const kind of kinds)
    row(
      kind,
      outcomes.filter((o) => o.kind === kind),
    );
  row('all', outcomes);
  const errors = outcomes.filter((o) => !ok(o));
  const outage = errors.filter((o) => duringOutage(o, faults));
  const split = faults.some((f) => f.what.startsWith('PostgreSQL'));
  console.log(
    split ? `\nerrors by status (during the database outage + ${OUTAGE_GRACE_MS / 1000} s | outside it):` : '\nerrors by status:',
  );
  const keys = [...new Set(errors.map(errorKey))].sort();
  if (!keys.length) console.log('  none');
  for (const key of keys) {
    const all = errors.filter((o) => errorKey(o) === key);
    const inOutage = all.filter((o) => duringOutage(o, faults)).length;
    console.log(
      split ? `  ${key.padEnd(40)} ${String(inOutage).padStart(7)} | ${all.length - inOutage}` : `  ${key.padEnd(40)} ${all.length}`,
    );
  }
  console.log(
    split
      ? `  ${'total'.padEnd(40)} ${String(outage.length).padStart(7)} | ${errors.length - outage.length}`
      : `  ${'total'.padEnd(40)} ${errors.length}`,
  );
  if (faults.length) console.log('\nfaults (s from the start):');
  for (const f of faults) console.log(`  ${f.what.padEnd(40)} ${(f.from / 1000).toFixed(1)} → ${(f.to / 1000).toFixed(1)}`);
}

/** `503 unavailable (search)` — status, the problem's code and which kind of request got it. */
function errorKey(o: Outcome): string {
  return `${o.status}${o.code ? ` ${o.code}` : ''} (${o.kind})`;
}

function at(sorted: number[], q: number): string {
  if (!sorted.length) return '-';
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!.toFixed(0);
}

export function printChecks(checks: Check[]): void {
  console.log('\nreconciliation:');
  for (const c of checks) console.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
}
