import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import type { WorkflowStarter, WorkflowStartQueue } from '../domain/ports.ts';
import { claimDueStarts, ownStarts, releaseStarts, retryDelayMs, startDone, startFailed } from '../domain/workflow-outbox/queue.ts';
import { WORKFLOW_STARTS_CHANNEL, type WorkflowStart, type WorkflowStartTableRow } from '../domain/workflow-outbox/starts.ts';

export interface WorkflowDispatcherOptions {
  db: Db;
  /** The LISTEN connection's database (a connection of its own, outside the pool). */
  databaseUrl: string;
  workflows: WorkflowStarter;
  config: Pick<Config, 'workflowStarts' | 'webhooks'>;
  log: Logger;
}

export interface WorkflowDispatcher extends WorkflowStartQueue {
  /** Listens for recorded starts and sweeps for left ones; once per process whatever its roles. */
  run(): void;
  /** Whether the last start reached Temporal (/readyz reports it). */
  temporalAnswers(): boolean;
  stop(): Promise<void>;
}

/** Starts taken per round of a sweep; the rest waits for the next round. */
const BATCH = 100;
/** Starts made at once within a round. */
const PARALLEL = 8;

/**
 * The one way a write's workflows start (docs/decisions/workflow-start-outbox.md). A write records
 * each start in its transaction (recordWorkflowStart); the process that wrote makes it right after
 * the commit (startNow, under a lease), and the dispatchers of every api and worker process make
 * the rest: woken by the NOTIFY of a commit, and sweeping every WORKFLOW_START_SWEEP_MS for what a
 * crash or a failed start left (SKIP LOCKED, so each takes its own rows). Starts are idempotent
 * (deterministic ids, USE_EXISTING), so a start made twice joins one run.
 */
export function createWorkflowDispatcher({ db, databaseUrl, workflows, config, log }: WorkflowDispatcherOptions): WorkflowDispatcher {
  const { sweepMs, leaseMs, retry } = config.workflowStarts;
  let answers = true;
  let started = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let listener: pg.Client | undefined;
  let round: Promise<void> | null = null;
  let again = false;
  // A dispatcher whose starts fail backs off itself instead of the starts: it gives them back at
  // once, so another process that reaches Temporal makes them now, and it only probes with one
  // start a round (doubling its pause) until one goes through.
  let failures = 0;
  let pausedUntil = 0;

  const attempt = async (row: WorkflowStartTableRow): Promise<boolean> => {
    try {
      await makeStart(workflows, config, row);
    } catch (err) {
      answers = false;
      pausedUntil = Date.now() + retryDelayMs(failures++, retry);
      log.warn({ err, workflowId: row.workflow_id, attempts: row.attempts + 1 }, 'workflow start failed; retrying');
      await startFailed(db, row, (err as Error).message ?? String(err));
      return false;
    }
    await startDone(db, row);
    answers = true;
    failures = 0;
    return true;
  };
  /** Makes the starts a few at a time; after a failure the rest are given back. */
  const attemptAll = async (rows: WorkflowStartTableRow[]) => {
    for (let i = 0; i < rows.length; i += PARALLEL) {
      const made = await Promise.all(rows.slice(i, i + PARALLEL).map(attempt));
      if (made.includes(false)) return releaseStarts(db, rows.slice(i + PARALLEL).map((r) => Number(r.id)));
    }
  };
  const sweep = async () => {
    try {
      do {
        again = false;
        if (Date.now() < pausedUntil) break;
        const limit = answers ? BATCH : 1;
        const rows = await claimDueStarts(db, limit, leaseMs);
        await attemptAll(rows);
        if (rows.length === limit && answers) again = true;
      } while (again && !stopped);
    } catch (err) {
      log.warn({ err }, 'sweeping workflow starts failed; trying again');
    } finally {
      round = null;
    }
  };
  function wake() {
    if (stopped || !started) return;
    if (round) again = true;
    else round = sweep();
  }
  const listen = async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    client.on('notification', wake);
    client.on('error', (err) => {
      log.warn({ err }, 'workflow start notifications lost; sweeping until they are back');
      void client.end().catch(() => {});
      if (listener === client) listener = undefined;
      if (!stopped) setTimeout(() => void listen().catch(() => {}), sweepMs * 5).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${WORKFLOW_STARTS_CHANNEL}`);
    if (stopped) await client.end();
    else listener = client;
  };

  return {
    inlineLeaseMs: () => (answers ? leaseMs : null),
    async startNow(ids) {
      try {
        await attemptAll(await ownStarts(db, ids));
      } catch (err) {
        // The starts stay recorded: the sweep makes them once their lease is over.
        log.warn({ err }, 'starting workflows after a write failed; the dispatcher retries');
      }
    },
    run() {
      if (started || stopped) return;
      started = true;
      listen().catch((err: unknown) => log.warn({ err }, 'cannot listen for workflow starts; sweeping only'));
      timer = setInterval(wake, sweepMs);
      timer.unref();
      wake();
    },
    temporalAnswers: () => answers,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await listener?.end().catch(() => {});
      await round;
    },
  };
}

/** Makes one recorded start through the port (each kind's start is idempotent: `USE_EXISTING` on its id). */
async function makeStart(workflows: WorkflowStarter, config: Pick<Config, 'webhooks'>, row: WorkflowStartTableRow): Promise<void> {
  const start = { kind: row.kind, input: row.input } as WorkflowStart;
  switch (start.kind) {
    case 'draft':
      return workflows.startDraft(start.input.draftId, start.input);
    case 'order':
      return workflows.startOrder(start.input.order, start.input.listingIds);
    case 'claim':
      return workflows.startClaim(start.input as Parameters<WorkflowStarter['startClaim']>[0]);
    case 'listing-update':
      return workflows.startListingUpdate(start.input.updateId, start.input.batchSize, start.input.listingId);
    case 'newsletter':
      return workflows.startNewsletter(start.input);
    case 'notification-mail':
      return workflows.startNotificationMail(start.input);
    case 'account-export':
      return workflows.startAccountExport(start.input);
    case 'webhook-delivery': {
      const { retry } = config.webhooks;
      const { deliveryId, round, listingId, replace } = start.input;
      return workflows.startWebhookDelivery(
        { deliveryId, round, firstRetryMs: retry.firstMs, maxRetryMs: retry.maxMs, windowMs: retry.windowMs },
        { listingId, replace },
      );
    }
  }
}
