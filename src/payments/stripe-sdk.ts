import { createRequire } from 'node:module';
import type Stripe from 'stripe';

const requireCommonJs = createRequire(import.meta.url);
let sdk: typeof Stripe | undefined;

/**
 * The official Stripe SDK, loaded at its first use. Importing it costs about 0.2 s of CPU, which
 * every process that builds the services (each test file is one) would pay at startup, though
 * only the `stripe` provider and webhook verification use it. It is required (its CommonJS build),
 * not imported, so that its callers stay synchronous. The one place that loads the SDK; the other
 * modules import only its types.
 */
export function stripeSdk(): typeof Stripe {
  return (sdk ??= requireCommonJs('stripe') as typeof Stripe);
}
