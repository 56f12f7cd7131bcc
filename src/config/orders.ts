import { z } from 'zod';

/** Environment variables of orders and payments; part of config.ts's schema (kept apart to keep it short). */
export const ORDER_ENV = {
  ORDER_CHECKOUT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(86_400)
    .describe('How long a checkout link stays payable (86400: 24 h).'),
  PROMO_MAX_WRONG_PER_ACCOUNT_15MIN: z.coerce
    .number()
    .int()
    .min(1)
    .default(5)
    .describe('Wrong promo-code tries per account in 15 minutes before 429 rate_limited.'),
  PROMO_MAX_WRONG_PER_ACCOUNT_DAY: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe('Wrong promo-code tries per account per day before 429 rate_limited.'),
  PROMO_MAX_WRONG_PER_IP_DAY: z.coerce
    .number()
    .int()
    .min(1)
    .default(100)
    .describe('Wrong promo-code tries per client address per day before 429 rate_limited.'),
  ORDER_FULFIL_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .default(5)
    .describe('Attempts of one fulfilment step before the order needs support (`attention`).'),
  ORDER_STEP_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(50)
    .default(8)
    .describe(
      'Tries of a payment step (applying an event, a refund) before the order needs support (about 2 minutes at the default interval); a refusal by the provider is not retried at all.',
    ),
  ORDER_STEP_RETRY_INITIAL_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(60_000)
    .default(1_000)
    .describe('First pause between tries of a payment step, doubling up to a minute.'),
  PAYMENT_PROVIDER: z
    .enum(['test', 'stripe'])
    .optional()
    .describe(
      '`test` (simulated methods; refused in production) or `stripe`. Unset: `test` outside production; in production `stripe` when its three keys are set, else none (orders can be priced and built, not paid: 503).',
    ),
  TEST_PAYMENTS_WEBHOOK_SECRET: z
    .string()
    .min(16)
    .default('whsec_test_listing_directory_dev')
    .describe("Signing secret of the test provider's webhooks (Stripe's format)."),
  TEST_PAYMENTS_CRYPTO_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(2_000)
    .describe("How long the test provider's crypto payments stay `processing`."),
  STRIPE_SECRET_KEY: z.string().optional().describe('Stripe secret key (sk_...); required with PAYMENT_PROVIDER=stripe.'),
  STRIPE_PUBLISHABLE_KEY: z
    .string()
    .optional()
    .describe('Stripe publishable key (pk_...), used by the pay page; required with PAYMENT_PROVIDER=stripe.'),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .optional()
    .describe(
      'Signing secret (whsec_...) of the Stripe webhook endpoint /webhooks/payments/stripe; required with PAYMENT_PROVIDER=stripe.',
    ),
  STRIPE_API_HOST: z
    .string()
    .optional()
    .describe('Where the Stripe SDK sends API calls (a loopback fake in tests). Unset: api.stripe.com.'),
  STRIPE_API_PORT: z.coerce.number().int().optional().describe('Port of STRIPE_API_HOST. Unset: 443.'),
  STRIPE_API_PROTOCOL: z.enum(['http', 'https']).optional().describe('Protocol of STRIPE_API_HOST. Unset: https.'),
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
