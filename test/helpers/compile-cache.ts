/**
 * Run by the harness in a process of its own, with NODE_COMPILE_CACHE set, while PostgreSQL and
 * Temporal start: it loads what nearly every test process loads (the app, the Temporal worker,
 * Playwright) so that Node's compile cache holds it before the first test file starts. Node
 * writes a process's entries only when that process exits, and a killed worker process writes
 * none: without this, the first files and every worker process a fault test starts and kills
 * compiled the whole app anew (about 0.6 s of CPU each).
 */
await import('./env.ts');
await import('../../src/temporal/worker.ts');
await import('playwright-core');
