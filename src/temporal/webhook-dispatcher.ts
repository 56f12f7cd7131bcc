import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import type { WorkflowStarter } from '../domain/ports.ts';
import { markDeliveryStarted, unstartedDeliveries } from '../domain/webhooks/deliveries.ts';

export interface WebhookDispatcherOptions {
  db: Db;
  workflows: WorkflowStarter;
  config: Config;
  log: Logger;
}

export interface WebhookDispatcher {
  stop(): Promise<void>;
}

/** Starts per round of the loop; the rest waits for the next one. */
const BATCH = 100;

/**
 * Starts the workflow `webhook-delivery:{id}` of every delivery that has none yet: the ones
 * emitEvent() recorded (in the transaction of the moment they report, which cannot start a
 * workflow itself), and redeliveries whose start failed. Runs in every worker process; a start
 * repeated by two of them joins the same run (the workflow id is the delivery's), and a run that
 * finds its delivery done sends nothing, so each event reaches each endpoint once.
 */
export function startWebhookDispatcher({ db, workflows, config, log }: WebhookDispatcherOptions): WebhookDispatcher {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const { retry } = config.webhooks;
  const dispatch = async () => {
    try {
      for (const d of await unstartedDeliveries(db, BATCH)) {
        if (stopped) break;
        await workflows.startWebhookDelivery(
          { deliveryId: d.id, round: d.round, firstRetryMs: retry.firstMs, maxRetryMs: retry.maxMs, windowMs: retry.windowMs },
          // A redelivery whose own start failed replaces the older round's run.
          { listingId: d.listing_id, replace: d.round > 0 },
        );
        await markDeliveryStarted(db, d.id, d.round);
      }
    } catch (err) {
      log.warn({ err }, 'starting webhook deliveries failed; retrying');
    }
    if (!stopped) timer = setTimeout(() => (current = dispatch()), config.webhooks.dispatchIntervalMs);
  };
  current = dispatch();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
