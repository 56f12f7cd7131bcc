import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { Worker } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../src/embedded/temporal.ts';
import { workflowBundle } from '../../src/temporal/worker.ts';

/**
 * Workflow timing on Temporal's clock: Temporal's Java test server with time skipping (DESIGN.md
 * §6 Testing). The harness provisions it (temporal/test-server.sh) and passes its launcher in
 * TEST_TEMPORAL_TEST_SERVER; run alone, a file provisions it here. The test server has no
 * schedules and no visibility queries: start a worker for the task queue under test yourself
 * (timeSkippingWorker), not the app's startWorkers.
 */
export async function testServerPath(): Promise<string> {
  if (process.env.TEST_TEMPORAL_TEST_SERVER) return process.env.TEST_TEMPORAL_TEST_SERVER;
  const script = path.resolve(import.meta.dirname, '../../temporal/test-server.sh');
  const { stdout } = await promisify(execFile)('bash', [script], { timeout: 600_000 });
  return stdout.trim();
}

/**
 * A time-skipping test server of its own (namespace `default`) with our search attributes (the
 * app's starts set them; the test server cannot list them, so ensureSearchAttributes cannot add
 * them there); `teardown()` it when done.
 */
export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  const testEnv = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: await testServerPath() } },
  });
  const searchAttributes = Object.fromEntries(
    Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [
      name,
      encodeSearchAttributeIndexedValueType(type === 'Int' ? 'INT' : 'KEYWORD')!,
    ]),
  );
  await testEnv.connection.operatorService.addSearchAttributes({ namespace: testEnv.namespace ?? 'default', searchAttributes });
  return testEnv;
}

/**
 * A running worker on the test server for one task queue, with the real activities (built like
 * startWorkers builds them). Returns a stop function.
 */
export async function timeSkippingWorker(
  testEnv: TestWorkflowEnvironment,
  taskQueue: string,
  activities: object,
): Promise<{ stop(): Promise<void> }> {
  const worker = await Worker.create({
    connection: testEnv.nativeConnection,
    namespace: testEnv.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
  });
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
