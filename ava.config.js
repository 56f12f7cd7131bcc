/**
 * The ava configuration of `npm test` (test/harness.ts runs ava with it).
 *
 * Files run in processes of their own, `concurrency` at a time. Many files spend most of their time
 * waiting (for Temporal's timeouts, a killed worker's tasks, Chromium, the JVM of the time-skipping
 * server) rather than computing, so more files run at once than the machine has cores.
 *
 * The files that take longest start first: started last, one of them would run alone at the end of
 * the run while the other slots stay empty. SLOW_FIRST lists them, longest first, except that the
 * ones that mostly wait (for Temporal's timeouts, killed workers, a JVM, timing samples) alternate
 * with the ones that compute: three waiting files at once left the machine a third idle for over a
 * minute. Every other file follows in path order. A file missing from the list only starts later,
 * nothing else.
 */
const SLOW_FIRST = [
  'test/workflows/order-fault.test.ts', // waits
  'test/search/engine-parity.test.ts',
  'test/workflows/claim.test.ts', // waits
  'test/web/owner-a11y.test.ts',
  'test/web/owner-home.test.ts',
  'test/e2e/webhook-worker-kill.test.ts', // waits
  'test/mcp/oauth.test.ts',
  'test/workflows/listing-update.test.ts',
  'test/e2e/worker-sigterm.test.ts', // waits
  'test/web/checkout.test.ts',
  'test/web/newcomer-pages.test.ts',
  'test/embedded/startup-errors.test.ts', // waits
  'test/api/quotas.test.ts',
  'test/api/drafts.test.ts',
  'test/web/promote.test.ts',
  'test/web/signin-limits.test.ts',
  'test/workflows/listing-launch.test.ts', // waits
  'test/api/orders-capacity.test.ts',
  'test/web/forgot-password-timing.test.ts', // waits
];

const rank = (file) => {
  const i = SLOW_FIRST.findIndex((slow) => file.endsWith(slow));
  return i === -1 ? SLOW_FIRST.length : i;
};

export default {
  files: ['test/**/*.test.ts'],
  extensions: { ts: 'module' },
  timeout: '120s',
  concurrency: 3,
  workerThreads: false,
  nodeArguments: ['--import=./test/helpers/no-source-maps.ts'],
  sortTestFiles: (a, b) => rank(a) - rank(b) || a.localeCompare(b),
};
