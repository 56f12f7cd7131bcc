import fs from 'node:fs';
import path from 'node:path';

/**
 * The ava configuration of `npm test` (test/harness.ts runs ava with it).
 *
 * Files run in processes of their own, `concurrency` at a time. Many files spend most of their time
 * waiting (for Temporal's timeouts, a killed worker's tasks, Chromium, the JVM of the time-skipping
 * server) rather than computing, so more files run at once than the machine has cores.
 *
 * The order of the files:
 * - FIRST, the files that take longest, longest first: started last, one of them would run alone
 *   at the end of the run while the other slots stay empty;
 * - then every other file in path order, with the WAITING ones (they spend most of their time on
 *   Temporal's timeouts, killed workers, a JVM, timing samples or slow sites) spread over the first
 *   80 % of it: two or three of them at once left the machine partly idle for tens of seconds.
 * A file missing from the lists only runs at another time, nothing else.
 */
const FIRST = [
  'test/workflows/order-fault.test.ts',
  'test/search/engine-parity.test.ts',
  'test/workflows/claim.test.ts',
  'test/web/owner-a11y.test.ts',
  'test/web/owner-home.test.ts',
  'test/mcp/oauth.test.ts',
  'test/workflows/listing-update.test.ts',
  'test/web/checkout.test.ts',
  'test/web/newcomer-pages.test.ts',
  'test/web/promote.test.ts',
  'test/web/staff-console.test.ts',
  'test/web/second-factor.test.ts',
  'test/api/drafts.test.ts',
  'test/web/signin-limits.test.ts',
  'test/api/orders-capacity.test.ts',
];
const WAITING = [
  'test/e2e/workflow-start-kill.test.ts',
  'test/e2e/multi-process.test.ts',
  'test/e2e/newsletter-worker-kill.test.ts',
  'test/web/cdn-proxy.test.ts',
  'test/api/workflow-starts.test.ts',
  'test/e2e/worker-sigterm.test.ts',
  'test/e2e/webhook-worker-kill.test.ts',
  'test/workflows/listing-launch.test.ts',
  'test/api/quotas.test.ts',
  'test/api/claims.test.ts',
  'test/temporal/search-attributes.test.ts',
  'test/embedded/startup-errors.test.ts',
  'test/web/forgot-password-timing.test.ts',
];

const testFiles = fs
  .readdirSync('test', { recursive: true })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => path.join('test', file))
  .sort();
const rest = testFiles.filter((file) => !FIRST.includes(file) && !WAITING.includes(file));
const every = Math.max(1, Math.floor((rest.length * 0.8) / WAITING.length));
const waiting = [...WAITING];
const ORDER = [...FIRST];
rest.forEach((file, i) => {
  ORDER.push(file);
  if ((i + 1) % every === 0 && waiting.length > 0) ORDER.push(waiting.shift());
});
ORDER.push(...waiting);

const rank = (file) => {
  const i = ORDER.findIndex((listed) => file.endsWith(listed));
  return i === -1 ? ORDER.length : i;
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
