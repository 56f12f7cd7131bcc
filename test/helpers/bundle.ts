import fs from 'node:fs/promises';
import type { WorkflowBundle } from '@temporalio/worker';

let shared: Promise<WorkflowBundle> | null = null;

/**
 * The workflow code, bundled once for the whole run by the harness (TEST_WORKFLOW_BUNDLE names the
 * file; bundling costs seconds of CPU per test file otherwise); run alone, a file bundles it here.
 */
export function testWorkflowBundle(): Promise<WorkflowBundle> {
  const file = process.env.TEST_WORKFLOW_BUNDLE;
  if (!file) return import('../../src/temporal/worker.ts').then(({ workflowBundle }) => workflowBundle());
  shared ??= fs.readFile(file, 'utf8').then((code) => ({ code }));
  return shared;
}
