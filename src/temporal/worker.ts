import path from 'node:path';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { createDraftActivities } from '../activities/drafts.ts';
import { createLaunchActivities } from '../activities/launches.ts';
import { createListingUpdateActivities } from '../activities/listing-updates.ts';
import { createMailActivities } from '../activities/mail.ts';
import { createMailer } from '../mail/smtp.ts';
import { startMailSweeper } from '../mail/sweeper.ts';
import { ensureSearchAttributes } from './search-attributes.ts';
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
  await ensureSearchAttributes(deps.address, deps.namespace, deps.log);
  const connection = await NativeConnection.connect({ address: deps.address });
  const bundle = deps.bundle ?? (await workflowBundle());
  const drafts = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: TASK_QUEUES.drafts,
    workflowBundle: bundle,
    activities: createDraftActivities({ db: deps.db, config: deps.config }),
  });
  const mailer = createMailer(deps.config);
  const listings = await Worker.create({
    connection,
    namespace: deps.namespace,
    taskQueue: TASK_QUEUES.listings,
    workflowBundle: bundle,
    activities: {
      ...createListingUpdateActivities({ db: deps.db, config: deps.config }),
      ...createMailActivities({ db: deps.db, mailer }),
      ...createLaunchActivities({ db: deps.db, config: deps.config }),
    },
  });
  const sweeper = mailer && startMailSweeper({ db: deps.db, mailer, intervalMs: deps.config.mail.sweepIntervalMs, log: deps.log });
  const workers = [drafts, listings];
  const done = Promise.all(workers.map((w) => w.run())).then(() => connection.close());
  deps.log.info({ taskQueues: [TASK_QUEUES.drafts, TASK_QUEUES.listings], smtp: Boolean(mailer) }, 'temporal worker running');
  return {
    done,
    async shutdown() {
      await sweeper?.stop();
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await done;
      mailer?.close();
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
