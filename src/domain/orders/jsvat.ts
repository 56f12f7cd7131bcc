import { createRequire } from 'node:module';

type Jsvat = typeof import('jsvat');

const requireCommonJs = createRequire(import.meta.url);
let jsvat: Jsvat | undefined;

/**
 * The `jsvat` package (VAT number formats and checksums), loaded at its first use: importing it
 * costs about 14 ms of CPU, which every process that builds the services (each test file is one)
 * would pay at startup, though only orders and the seller's settings with a VAT number check one.
 * Required (its CommonJS build), so that the check stays synchronous. The one place that loads
 * jsvat; the other modules import only its types.
 */
export function jsvatChecker(): Jsvat {
  return (jsvat ??= requireCommonJs('jsvat') as Jsvat);
}
