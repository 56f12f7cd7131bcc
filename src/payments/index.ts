import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import type { PaymentProvider, ProviderName } from '../domain/orders/payment-port.ts';
import { createStripeProvider, type StripePayments } from './stripe/index.ts';
import { createTestProvider, type TestPayments } from './test-provider/index.ts';

export { requireProvider as requirePayments } from '../domain/orders/payment-port.ts';

export type ConfiguredProvider =
  | (PaymentProvider & TestPayments & { name: 'test' })
  | (PaymentProvider & StripePayments & { name: 'stripe' });

/** The configured provider (PAYMENT_PROVIDER), built once by createServices; null when payments are not configured. */
export function createPaymentProvider(db: Db, config: Config): ConfiguredProvider | null {
  if (config.orders.provider === null) return null;
  return (
    config.orders.provider === 'stripe' ? createStripeProvider(config.orders.stripe!) : createTestProvider(db, config.orders)
  ) as ConfiguredProvider;
}

export const isProviderName = (name: string): name is ProviderName => name === 'test' || name === 'stripe';
