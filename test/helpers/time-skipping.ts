import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import { Worker } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/contracts/search-attributes.ts';
import { testWorkflowBundle } from './bundle.ts';
import { freePort, quietSdkLogs } from './env.ts';
import { eventually } from './eventually.ts';

/**
 * Workflow timing on Temporal's clock: Temporal's Java test server with time skipping (docs/architecture.md:
 * Tests). The harness provisions it (temporal/test-server.sh) and passes its launcher in
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

/** A time-skipping test environment; `teardown()` it when done (it also stops its server). */
export type TimeSkippingEnv = TestWorkflowEnvironment;

/**
 * A time-skipping test server of its own (namespace `default`) with our search attributes (the
 * app's starts set them; the test server cannot list them, so ensureSearchAttributes cannot add
 * them there). We start the server ourselves: the SDK gives a server it starts 5 s, and the JVM
 * takes longer than that on a loaded machine; we wait for it to answer instead.
 */
export async function startTimeSkipping(): Promise<TimeSkippingEnv> {
  const port = await freePort();
  // Only the port, as the SDK starts it: Temporal's clock then moves on by itself only while a
  // client unlocks it (awaiting a result, testEnv.sleep); `--enable-time-skipping` would let it
  // run ahead at any time.
  const server = spawn(await testServerPath(), [String(port)], {
    stdio: 'ignore',
    // A server lives for one test and does little: the JVM's quick compiler alone and its serial
    // collector start it for much less CPU (claim.test.ts's four servers: 11.9 → 6.9 s).
    env: { ...process.env, JAVA_TOOL_OPTIONS: `${process.env.JAVA_TOOL_OPTIONS ?? ''} -XX:TieredStopAtLevel=1 -XX:+UseSerialGC`.trim() },
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
    await exited;
  };
  try {
    const address = `127.0.0.1:${port}`;
    await eventually(
      `Temporal's test server on ${address}`,
      async () => {
        if (server.exitCode !== null) throw new Error(`the test server exited with ${server.exitCode}`);
        const connection = await Connection.connect({ address, connectTimeout: 1_000 }).catch(() => null);
        if (!connection) return false;
        const ok = await connection.workflowService.getSystemInfo({}).then(
          () => true,
          () => false,
        );
        await connection.close();
        return ok;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    await quietSdkLogs();
    // `create` is the SDK's own constructor for an environment on a running server that can skip time.
    const create = (TestWorkflowEnvironment as unknown as { create(o: object): Promise<TestWorkflowEnvironment> }).create;
    const testEnv = await create.call(TestWorkflowEnvironment, {
      server: { type: 'existing' },
      address,
      namespace: 'default',
      supportsTimeSkipping: true,
    });
    const searchAttributes = Object.fromEntries(
      Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [
        name,
        encodeSearchAttributeIndexedValueType(type === 'Int' ? 'INT' : 'KEYWORD')!,
      ]),
    );
    await testEnv.connection.operatorService.addSearchAttributes({ namespace: 'default', searchAttributes });
    const teardown = testEnv.teardown.bind(testEnv);
    testEnv.teardown = async () => {
      await teardown().catch(() => {});
      await stop();
    };
    return testEnv;
  } catch (err) {
    await stop();
    throw err;
  }
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
    workflowBundle: await testWorkflowBundle(),
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
