import path from 'node:path';
import { GracefulShutdownPeriodExpiredError, NativeConnection, Worker, bundleWorkflowCode, type WorkerOptions, type WorkflowBundle, type WorkflowBundlePath } from '@temporalio/worker';
import type { Config } from '../config/config.ts';
import type { Services } from '../services.ts';
import { createClaimActivities } from '../activities/claims.ts';
import { createDraftActivities } from '../activities/drafts.ts';
import { createListingImportActivities } from '../activities/listing-imports.ts';
import { createLaunchActivities } from '../activities/launches.ts';
import { createAccountActivities } from '../activities/accounts.ts';
import { createListingUpdateActivities } from '../activities/listing-updates.ts';
import { createMailActivities } from '../activities/mail.ts';
import { createRankingActivities } from '../activities/ranking.ts';
import { createMaintenanceActivities } from '../activities/maintenance.ts';
import { createNewsletterActivities } from '../activities/newsletter.ts';
import { createNotificationMailActivities } from '../activities/notification-mail.ts';
import { createOrderActivities } from '../activities/orders.ts';
import { createWebhookActivities } from '../activities/webhooks.ts';
import { startMailSweeper } from '../mail/sweeper.ts';
import { ensureSchedules } from './schedules.ts';
import { ensureSearchAttributes } from './search-attributes.ts';
import { TASK_QUEUES } from '../workflows/contracts/task-queues.ts';

/**
 * After the grace period running activities are cancelled; one that ignores it (a query stuck on
 * a lock, a local activity retrying) would hold the worker for ever. This long after the grace
 * period the worker gives up on them: Temporal retries them elsewhere at their timeouts.
 */
const FORCE_AFTER_GRACE_MS = 1_000;

const shutdownTimes = (config: Config) => ({
  shutdownGraceTime: config.shutdownGraceMs,
  shutdownForceTime: config.shutdownGraceMs + FORCE_AFTER_GRACE_MS,
});

export const WORKFLOWS_PATH = path.resolve(import.meta.dirname, '../workflows/index.ts');

/** What the workers use, handed over by the composition root (main.ts, or the tests' harness). */
export interface WorkerDeps
  extends Pick<Services, 'config' | 'db' | 'log' | 'workflows' | 'workflowStarts' | 'payments' | 'mailer' | 'badgeAgent' | 'media' | 'clock' | 'secrets'> {
  address: string;
  namespace: string;
  /** Reuse a prepared bundle (tests start many workers; as a file, the SDK need not re-encode its source map). */
  bundle?: WorkflowBundle | WorkflowBundlePath;
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
  // Not fatal: on Temporal Cloud, say, attributes are managed outside and this may be refused.
  await ensureSearchAttributes(deps.address, deps.namespace, deps.log);
  const connection = await NativeConnection.connect({ address: deps.address });
  const bundle = deps.bundle ?? (await workflowBundle());
  // What every queue's worker shares: one connection, the namespace, the bundle, the shutdown times.
  const queueWorker = (taskQueue: string, options: Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'workflowBundle'>) =>
    Worker.create({
      connection,
      namespace: deps.namespace,
      taskQueue,
      workflowBundle: bundle,
      ...shutdownTimes(deps.config),
      ...options,
    });
  const drafts = await queueWorker(TASK_QUEUES.drafts, {
    activities: {
      ...createDraftActivities({ db: deps.db, config: deps.config, media: deps.media }),
      ...createListingImportActivities({ db: deps.db, config: deps.config, media: deps.media, clock: deps.clock }),
    },
  });
  const mailer = deps.mailer;
  const listings = await queueWorker(TASK_QUEUES.listings, {
    activities: {
      ...createListingUpdateActivities({ db: deps.db, config: deps.config, clock: deps.clock }),
      ...createNotificationMailActivities({ db: deps.db, config: deps.config, clock: deps.clock }),
      ...createMailActivities({ db: deps.db, mailer }),
      ...createLaunchActivities({ db: deps.db, config: deps.config, badgeAgent: deps.badgeAgent, clock: deps.clock }),
    },
  });
  const claims = await queueWorker(TASK_QUEUES.claims, {
    activities: { ...createClaimActivities({ db: deps.db, config: deps.config, clock: deps.clock }), ...createMailActivities({ db: deps.db, mailer }) },
  });
  const ranking = await queueWorker(TASK_QUEUES.ranking, {
    activities: {
      ...createRankingActivities({ db: deps.db, config: deps.config, clock: deps.clock }),
      ...createMailActivities({ db: deps.db, mailer }),
      ...createMaintenanceActivities({ db: deps.db, clock: deps.clock }),
      ...createNewsletterActivities({ db: deps.db, config: deps.config }),
    },
  });
  deps.log.info({ schedules: await ensureSchedules(connection, deps.namespace) }, 'schedules in place');
  const orders = await queueWorker(TASK_QUEUES.orders, {
    activities: {
      ...createOrderActivities({
        db: deps.db,
        config: deps.config,
        // Fulfilling orders starts or signals other workflows (a paid launch).
        workflows: deps.workflows,
        payments: deps.payments,
        clock: deps.clock,
      }),
      ...createMailActivities({ db: deps.db, mailer }),
    },
  });
  const webhooks = await queueWorker(TASK_QUEUES.webhooks, {
    // Deliveries connect through the crawler's guarded agent (the badge checks' one).
    activities: createWebhookActivities({ db: deps.db, config: deps.config, agent: deps.badgeAgent, secrets: deps.secrets }),
    // Each try holds a database connection for its POST (up to 10 s): leave the pool to the rest.
    maxConcurrentActivityTaskExecutions: 4,
  });
  const accounts = await queueWorker(TASK_QUEUES.accounts, {
    activities: {
      ...createAccountActivities({ db: deps.db, config: deps.config, secrets: deps.secrets, clock: deps.clock }),
      ...createMailActivities({ db: deps.db, mailer }),
    },
  });
  // Workflow starts writes recorded (webhook deliveries among them): made here too, so that a
  // worker alone still starts what api processes recorded while Temporal was away.
  deps.workflowStarts.run();
  const sweeper = mailer && startMailSweeper({ db: deps.db, mailer, intervalMs: deps.config.mail.sweepIntervalMs, log: deps.log });
  const workers = [drafts, listings, ranking, claims, orders, webhooks, accounts];
  const done = Promise.all(workers.map((w) => w.run())).then(() => connection.close());
  deps.log.info({ taskQueues: workers.map((w) => w.options.taskQueue), smtp: Boolean(mailer) }, 'temporal worker running');
  return {
    done,
    async shutdown() {
      await sweeper?.stop();
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      // The starter and the mailer belong to Services, which closes them.
      await done.catch((err: unknown) => {
        if (!(err instanceof GracefulShutdownPeriodExpiredError)) throw err;
        deps.log.warn('activities still running after the grace period were cut off (Temporal retries them)');
      });
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
