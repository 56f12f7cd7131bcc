import test from 'ava';
import { loadConfig } from '../src/config/config.ts';

test('the test payment provider is the default outside production and refused in production', (t) => {
  t.is(loadConfig({}).orders.provider, 'test');
  t.throws(() => loadConfig({ NODE_ENV: 'production', PAYMENT_PROVIDER: 'test' }), {
    message: /test provider is refused when NODE_ENV=production/,
  });
  // Production without Stripe keys runs without payments; asking for Stripe without them fails fast.
  t.is(loadConfig({ NODE_ENV: 'production' }).orders.provider, null);
  t.throws(() => loadConfig({ NODE_ENV: 'production', PAYMENT_PROVIDER: 'stripe' }), {
    message: /STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET/,
  });
  const stripe = loadConfig({
    NODE_ENV: 'production',
    STRIPE_SECRET_KEY: 'sk',
    STRIPE_PUBLISHABLE_KEY: 'pk',
    STRIPE_WEBHOOK_SECRET: 'whsec',
  });
  t.is(stripe.orders.provider, 'stripe');
  t.is(loadConfig({ ORDER_CHECKOUT_TTL_SECONDS: '60' }).orders.checkoutTtlSeconds, 60);
  t.throws(() => loadConfig({ ORDER_CHECKOUT_TTL_SECONDS: '0' }));
});
