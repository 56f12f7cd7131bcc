import { createRequire } from 'node:module';

/**
 * VAT rates come from the `sales-tax` package's dated rate data (pinned in package.json), not
 * from a table typed in here: each country has its current rate and, under `before`, the rates
 * that applied before a given instant.
 */
interface RateEntry {
  type: string;
  rate: number;
  before?: Record<string, { type: string; rate: number }>;
}

/** A rate in basis points that applied until `until` (epoch ms; Infinity for the current rate). */
export interface RatePeriod {
  until: number;
  bp: number;
}

export interface VatRates {
  /** Each country's rates, oldest first; the last has no end and is the current rate. */
  history: ReadonlyMap<string, RatePeriod[]>;
  /** The EU member states. */
  eu: readonly string[];
}

const requireJson = createRequire(import.meta.url);
let rates: VatRates | undefined;

/**
 * The VAT rates of the `sales-tax` package's rate files, read at the first call: parsing them costs
 * about 65 ms of CPU, which every process that builds the services (each test file is one) would
 * pay at startup, though only quotes, orders and the seller's settings need a rate. Required, so
 * that the VAT rules stay synchronous. The one place that loads sales-tax.
 *
 * `until` is the instant before which `bp` applied (`before` in the data maps an instant to the
 * rate that applied before it).
 */
export function vatRates(): VatRates {
  if (rates) return rates;
  const data = requireJson('sales-tax/res/sales_tax_rates.json') as Record<string, RateEntry>;
  const history = new Map(
    Object.entries(data)
      .filter(([, entry]) => entry.type === 'vat')
      .map(([country, entry]) => {
        const past = Object.entries(entry.before ?? {})
          .map(([instant, r]) => ({ until: Date.parse(instant), bp: Math.round(r.rate * 10_000) }))
          .sort((a, b) => a.until - b.until);
        return [country, [...past, { until: Infinity, bp: Math.round(entry.rate * 10_000) }]];
      }),
  );
  const eu = (requireJson('sales-tax/res/region_countries.json') as { EU: string[] }).EU;
  return (rates = { history, eu });
}
