import { z } from 'zod';

/** Environment variables of orders and payments; part of config.ts's schema (kept apart to keep it short). */
export const ORDER_ENV = {
  /** How long a checkout link stays payable. @default 86400 (24 h) */
  ORDER_CHECKOUT_TTL_SECONDS: z.coerce.number().int().min(1).default(86_400),
  /** Wrong promo-code tries per account in 15 minutes, per account per day, per client address per day. */
  PROMO_MAX_WRONG_PER_ACCOUNT_15MIN: z.coerce.number().int().min(1).default(5),
  PROMO_MAX_WRONG_PER_ACCOUNT_DAY: z.coerce.number().int().min(1).default(20),
  PROMO_MAX_WRONG_PER_IP_DAY: z.coerce.number().int().min(1).default(100),
  /** Attempts of one fulfilment step before the order needs support (`attention`). @default 5 */
  ORDER_FULFIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  /**
   * Tries of a payment step (applying an event, a refund) before the order needs support; a
   * refusal by the provider is not retried at all. @default 8 (about 2 minutes at the default interval)
   */
  ORDER_STEP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  /** First pause between tries of a payment step, doubling up to a minute. @default 1000 */
  ORDER_STEP_RETRY_INITIAL_MS: z.coerce.number().int().min(1).max(60_000).default(1_000),
  /** `test` (simulated methods; refused in production) or `stripe`. @default test outside production */
  PAYMENT_PROVIDER: z.enum(['test', 'stripe']).optional(),
  /** Signing secret of the test provider's webhooks (Stripe's format). */
  TEST_PAYMENTS_WEBHOOK_SECRET: z.string().min(16).default('whsec_test_listing_directory_dev'),
  /** How long the test provider's crypto payments stay `processing`. @default 2000 */
  TEST_PAYMENTS_CRYPTO_DELAY_MS: z.coerce.number().int().min(0).default(2_000),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Where the Stripe SDK sends API calls (a loopback fake in tests). @default api.stripe.com:443 https */
  STRIPE_API_HOST: z.string().optional(),
  STRIPE_API_PORT: z.coerce.number().int().optional(),
  STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional(),
};

type OrderEnv = z.output<z.ZodObject<typeof ORDER_ENV>> & { NODE_ENV?: string | undefined };

export interface OrderConfig {
  checkoutTtlSeconds: number;
  promoLimits: { perAccount15Min: number; perAccountDay: number; perIpDay: number };
  fulfilMaxAttempts: number;
  /** Retries of the order workflow's payment steps (passed to each run as its input). */
  stepRetry: { initialIntervalMs: number; maximumAttempts: number };
  /** null: production without Stripe keys; orders can be priced and built, not paid (503). */
  provider: 'test' | 'stripe' | null;
  test: { webhookSecret: string; cryptoDelayMs: number; webhookUrl: string };
  stripe: {
    secretKey: string;
    publishableKey: string;
    webhookSecret: string;
    host: string | undefined;
    port: number | undefined;
    protocol: 'http' | 'https' | undefined;
  } | null;
}

/** Orders part of the typed config; fails fast on a provider that cannot run here. */
export function orderConfig(e: OrderEnv, baseUrl: string): OrderConfig {
  const production = e.NODE_ENV === 'production';
  const stripeMissing = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'STRIPE_WEBHOOK_SECRET'].filter((k) => !e[k as keyof OrderEnv]);
  // Production picks Stripe when its keys are there; the simulated provider is never used there.
  const provider = e.PAYMENT_PROVIDER ?? (production ? (stripeMissing.length ? null : 'stripe') : 'test');
  if (provider === 'test' && production) {
    throw new Error('Invalid environment:\n  PAYMENT_PROVIDER: the test provider is refused when NODE_ENV=production');
  }
  if (provider === 'stripe' && stripeMissing.length) {
    throw new Error(`Invalid environment:\n  ${stripeMissing.join(', ')}: required with PAYMENT_PROVIDER=stripe`);
  }
  return {
    checkoutTtlSeconds: e.ORDER_CHECKOUT_TTL_SECONDS,
    promoLimits: {
      perAccount15Min: e.PROMO_MAX_WRONG_PER_ACCOUNT_15MIN,
      perAccountDay: e.PROMO_MAX_WRONG_PER_ACCOUNT_DAY,
      perIpDay: e.PROMO_MAX_WRONG_PER_IP_DAY,
    },
    fulfilMaxAttempts: e.ORDER_FULFIL_MAX_ATTEMPTS,
    stepRetry: { initialIntervalMs: e.ORDER_STEP_RETRY_INITIAL_MS, maximumAttempts: e.ORDER_STEP_MAX_ATTEMPTS },
    provider,
    test: {
      webhookSecret: e.TEST_PAYMENTS_WEBHOOK_SECRET,
      cryptoDelayMs: e.TEST_PAYMENTS_CRYPTO_DELAY_MS,
      webhookUrl: `${baseUrl}/webhooks/payments/test`,
    },
    stripe:
      provider === 'stripe'
        ? {
            secretKey: e.STRIPE_SECRET_KEY!,
            publishableKey: e.STRIPE_PUBLISHABLE_KEY!,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
            host: e.STRIPE_API_HOST,
            port: e.STRIPE_API_PORT,
            protocol: e.STRIPE_API_PROTOCOL,
          }
        : null,
  };
}
