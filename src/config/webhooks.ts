import { z } from 'zod';

/** Environment variables of owners' webhooks; part of config.ts's schema (kept apart to keep it short). */
export const WEBHOOK_ENV = {
  WEBHOOK_RETRY_FIRST_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(5_000)
    .describe('Wait before the first retry of a failed webhook delivery; each next wait is 3 times longer.'),
  WEBHOOK_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(6 * 3_600_000)
    .describe('Longest wait between two tries of a delivery (21600000: 6 h).'),
  WEBHOOK_RETRY_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 86_400_000)
    .describe('How long a delivery is retried (259200000: 3 days); an endpoint that fails that long is turned off and its owner told.'),
  WEBHOOK_REDELIVERIES_PER_HOUR: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(30)
    .describe('Redeliveries (redeliver_webhook) an endpoint takes per hour; beyond, 429 with Retry-After.'),
};

type WebhookEnv = z.output<z.ZodObject<typeof WEBHOOK_ENV>>;

/** Retry schedule of deliveries (workflow inputs). */
export interface WebhookConfig {
  retry: { firstMs: number; maxMs: number; windowMs: number };
  redeliveriesPerHour: number;
}

export function webhookConfig(e: WebhookEnv): WebhookConfig {
  return {
    retry: { firstMs: e.WEBHOOK_RETRY_FIRST_MS, maxMs: e.WEBHOOK_RETRY_MAX_MS, windowMs: e.WEBHOOK_RETRY_WINDOW_MS },
    redeliveriesPerHour: e.WEBHOOK_REDELIVERIES_PER_HOUR,
  };
}
