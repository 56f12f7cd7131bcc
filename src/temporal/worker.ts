import path from 'node:path';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { createDraftActivities } from '../activities/drafts.ts';
import { TASK_QUEUES } from './task-queues.ts';

export const WORKFLOWS_PATH = path.resolve(import.meta.dirname, '../workflows/index.ts');

export interface WorkerDeps {
  config: Config;
  db: Db;
  address: string;
  namespace: string;
  log: Logger;
  /** Reuse a prepared bundle (tests start many workers). */
  bundle?: WorkflowBundle;
}

export interface RunningWorkers {
  /** Resolves when every worker stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

let bundlePromise: Promise<WorkflowBundle> | null = null;

/** Workflow code bundled once per process. */
export function workflowBundle(): Promise<WorkflowBundle> {
  bundlePromise ??= bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietBundlerLogger });
  return bundlePromise;
}

/** Starts one worker per task queue that has work today. */
export async function startWorkers(deps: WorkerDeps): Promise<RunningWorkers> {
  const connection = await NativeConnection.connect({ address: deps.address });
  const bundle = deps.bundle ?? (await workflowBundle());
  const drafts = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: TASK_QUEUES.drafts,
    workflowBundle: bundle,
    activities: createDraftActivities({ db: deps.db, config: deps.config }),
  });
  const workers = [drafts];
  const done = Promise.all(workers.map((w) => w.run())).then(() => connection.close());
  deps.log.info({ taskQueues: [TASK_QUEUES.drafts] }, 'temporal worker running');
  return {
    done,
    async shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
    },
  };
}

const quietBundlerLogger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error(message: string, meta?: Record<string, unknown>) {
    console.error(message, meta);
  },
  log() {},
};
