import { z } from 'zod';

/** Environment variables of owners' webhooks; part of config.ts's schema (kept apart to keep it short). */
export const WEBHOOK_ENV = {
  /** Wait before the first retry of a failed delivery; each next wait is 3 times longer. @default 5000 */
  WEBHOOK_RETRY_FIRST_MS: z.coerce.number().int().min(1).default(5_000),
  /** Longest wait between two tries of a delivery. @default 21600000 (6 h) */
  WEBHOOK_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(6 * 3_600_000),
  /** How long a delivery is retried; an endpoint failing that long is disabled. @default 259200000 (3 days) */
  WEBHOOK_RETRY_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 86_400_000),
};

type WebhookEnv = z.output<z.ZodObject<typeof WEBHOOK_ENV>>;

/** Retry schedule of deliveries (workflow inputs). */
export interface WebhookConfig {
  retry: { firstMs: number; maxMs: number; windowMs: number };
}

export function webhookConfig(e: WebhookEnv): WebhookConfig {
  return {
    retry: { firstMs: e.WEBHOOK_RETRY_FIRST_MS, maxMs: e.WEBHOOK_RETRY_MAX_MS, windowMs: e.WEBHOOK_RETRY_WINDOW_MS },
  };
}
