import type { WorkflowBundlePath } from '@temporalio/worker';

/**
 * The workflow code, bundled once for the whole run by the harness into the file TEST_WORKFLOW_BUNDLE
 * names (bundling costs seconds of CPU per test file otherwise). Given as a path: each worker the SDK
 * creates reads and parses it, but a bundle given as code also has its source map re-encoded for
 * every worker (six per startWorkers).
 */
export async function testWorkflowBundle(): Promise<WorkflowBundlePath> {
  const codePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (!codePath) throw new Error('TEST_WORKFLOW_BUNDLE is not set: run the suite with `npm test`');
  return { codePath };
}
