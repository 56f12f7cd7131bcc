import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorkflowBundlePath } from '@temporalio/worker';

let written: Promise<string> | null = null;

/**
 * The file of the workflow code, bundled once for the whole run by the harness
 * (TEST_WORKFLOW_BUNDLE names it; bundling costs seconds of CPU per test file otherwise); run
 * alone, a file bundles it here once.
 */
export function testWorkflowBundleFile(): Promise<string> {
  const file = process.env.TEST_WORKFLOW_BUNDLE;
  if (file) return Promise.resolve(file);
  written ??= import('../../src/temporal/worker.ts').then(async ({ workflowBundle }) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-bundle-'));
    await fs.writeFile(path.join(dir, 'workflow-bundle.js'), (await workflowBundle()).code);
    return path.join(dir, 'workflow-bundle.js');
  });
  return written;
}

/**
 * The bundle as a path: each worker the SDK creates reads and parses it, but a bundle given as code
 * also has its source map re-encoded for every worker (six per startWorkers).
 */
export async function testWorkflowBundle(): Promise<WorkflowBundlePath> {
  return { codePath: await testWorkflowBundleFile() };
}
