import { createRequire } from 'node:module';

type Undici = typeof import('undici');

const requireCommonJs = createRequire(import.meta.url);
let undici: Undici | undefined;

/**
 * The `undici` HTTP client, loaded at its first use: importing it costs about 90 ms of CPU, which
 * every process that builds the services (each test file is one) would pay at startup, though only
 * crawls, badge and claim checks, webhook deliveries, OAuth client metadata fetches and the test
 * payment provider's webhook make an outgoing request. Here, below the domain and the payment
 * adapters, because both use it. It is required (its CommonJS build), not imported, so that the
 * guarded agents stay synchronous to build. The one place that loads undici; the other modules
 * import only its types.
 */
export function loadUndici(): Undici {
  return (undici ??= requireCommonJs('undici') as Undici);
}
