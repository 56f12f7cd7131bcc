import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * Run by the harness in a process of its own, with NODE_COMPILE_CACHE set, while PostgreSQL and
 * Temporal start: it loads what nearly every test process loads (the app, the Temporal worker,
 * Playwright) so that Node's compile cache holds it before the first test file starts. Node
 * writes a process's entries only when that process exits, and a killed worker process writes
 * none: without this, the first files and every worker process a fault test starts and kills
 * compiled the whole app anew (about 0.6 s of CPU each).
 *
 * The test files named as arguments are compiled too, never run: each is loaded once per run, so
 * its process would otherwise strip its types itself, loading Node's TypeScript stripper for it
 * alone (about 40 ms of CPU per file). Here `ava` resolves to a module without exports, so linking
 * a test file fails after every module it imports has been compiled, before any of them runs.
 */
await import('./no-source-maps.ts');
await import('./env.ts');
await import('../../src/temporal/worker.ts');
await import('playwright-core');

registerHooks({
  resolve: (specifier, context, next) =>
    specifier === 'ava' ? { url: 'data:text/javascript,', shortCircuit: true } : next(specifier, context),
});
// Each import fails at linking (ava's default export is missing); ava reports any other error.
for (const file of process.argv.slice(2)) await import(pathToFileURL(file).href).catch(() => {});
