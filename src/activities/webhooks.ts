import { setInterval } from 'node:timers';
import { Context } from '@temporalio/activity';
import type { Dispatcher } from 'undici';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import type { AppSecrets } from '../auth/secrets.ts';
import { attemptDelivery, type AttemptInput } from '../domain/webhooks/deliveries.ts';
import type { AttemptOutcome } from '../domain/webhooks/events.ts';

export interface WebhookActivityDeps {
  db: Db;
  /** The app secrets the endpoints' signing secrets are sealed with. */
  secrets: AppSecrets;
  config: Config;
  /** The crawler's guarded agent (address guard at connect time). */
  agent: Dispatcher;
}

const HEARTBEAT_EVERY_MS = 1_000;

/** Activities of webhook deliveries; thin wrappers over domain code. */
export function createWebhookActivities({ db, config, agent, secrets }: WebhookActivityDeps) {
  return {
    /** One signed POST of a delivery, recorded; idempotent (a delivered round is not sent again). */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      // Alive while the receiver takes its time: a worker lost mid-try is noticed at the
      // workflow's heartbeat timeout (seconds), not at the end of the try's whole time.
      const ctx = Context.current();
      const beating = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        return await attemptDelivery(
          {
            db,
            secrets,
            agent,
            allowPrivateNetworks: config.crawl.allowPrivateNetworks,
            baseUrl: config.baseUrl,
            userAgent: config.crawl.userAgent,
          },
          input,
        );
      } finally {
        clearInterval(beating);
      }
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
