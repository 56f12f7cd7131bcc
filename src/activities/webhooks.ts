import type { Dispatcher } from 'undici';
import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { attemptDelivery, type AttemptInput } from '../domain/webhooks/deliveries.ts';
import type { AttemptOutcome } from '../domain/webhooks/events.ts';

export interface WebhookActivityDeps {
  db: Db;
  config: Config;
  /** The crawler's guarded agent (address guard at connect time). */
  agent: Dispatcher;
}

/** Activities of webhook deliveries; thin wrappers over domain code. */
export function createWebhookActivities({ db, config, agent }: WebhookActivityDeps) {
  return {
    /** One signed POST of a delivery, recorded; idempotent (a delivered round is not sent again). */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      return attemptDelivery(
        { db, agent, allowPrivateNetworks: config.crawl.allowPrivateNetworks, baseUrl: config.baseUrl, userAgent: config.crawl.userAgent },
        input,
      );
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
