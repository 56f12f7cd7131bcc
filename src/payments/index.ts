import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { AppError } from '../errors.ts';
import type { PaymentProvider, ProviderName } from './port.ts';
import { createStripeProvider, type StripePayments } from './stripe/index.ts';
import { createTestProvider, type TestPayments } from './test-provider/index.ts';

export type ConfiguredProvider =
  (PaymentProvider & TestPayments & { name: 'test' }) | (PaymentProvider & StripePayments & { name: 'stripe' });

const byConfig = new WeakMap<Config, ConfiguredProvider>();

/** The configured provider (PAYMENT_PROVIDER), one per process and config. */
export function paymentProvider(db: Db, config: Config): ConfiguredProvider {
  let provider = byConfig.get(config);
  if (!provider && config.orders.provider === null) {
    throw new AppError('payments_unavailable', 'Payments are not configured on this server (PAYMENT_PROVIDER and the Stripe keys).');
  }
  if (!provider) {
    provider = (
      config.orders.provider === 'stripe' ? createStripeProvider(config.orders.stripe!) : createTestProvider(db, config.orders)
    ) as ConfiguredProvider;
    byConfig.set(config, provider);
  }
  return provider;
}

export const isProviderName = (name: string): name is ProviderName => name === 'test' || name === 'stripe';
