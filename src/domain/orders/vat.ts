import { AppError } from '../../errors/errors.ts';
import { jsvatChecker } from './jsvat.ts';
import { vatRates } from './vat-rates.ts';

export type VatTreatment = 'domestic' | 'eu_consumer' | 'reverse_charge' | 'outside_eu';

/** The VAT part of a quote (amount_cents is filled in by the pricing). */
export interface VatDecision {
  country: string;
  rate_bp: number;
  treatment: VatTreatment;
  note: string | null;
}

/** What was checked about the buyer's VAT number; recorded on the order. */
export interface VatCheck {
  number: string;
  country: string;
  format_valid: boolean;
  checksum_valid: boolean;
  checked_at: string;
  method: 'jsvat';
}

export const REVERSE_CHARGE_NOTE = 'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).';

export const isEuCountry = (country: string) => vatRates().eu.includes(country);

/** The standard VAT rate of an EU country at `at`, in basis points (23 % → 2300). */
export function vatRateBp(country: string, at: Date): number {
  const history = vatRates().history.get(country);
  if (!history) throw new Error(`no VAT rate for ${country}`);
  // The earliest period that ends after `at`.
  return history.find((period) => period.until > at.getTime())!.bp;
}

/** A VAT number as stored: `fr 40.303-265 045` → `FR40303265045`. */
export const normalVatNumber = (raw: string) => raw.replace(/[\s.-]/g, '').toUpperCase();

/**
 * Checks a VAT number's format and checksum and that it belongs to `billingCountry`; an invalid
 * number is refused with the reason (a business that typed a wrong number must not silently pay
 * consumer VAT).
 */
export function checkVatNumber(raw: string, billingCountry: string, now: Date): VatCheck {
  const number = normalVatNumber(raw);
  const { checkVAT, countries } = jsvatChecker();
  const result = checkVAT(number, countries);
  const country = result.country?.isoCode.short;
  const refuse = (detail: string) => new AppError('vat_number_invalid', detail, { errors: [{ path: 'vat_number', message: detail }] });
  if (!result.isSupportedCountry || !country) throw refuse(`"${raw}" does not start with the prefix of an EU member state.`);
  if (country !== billingCountry) {
    throw refuse(`The VAT number is from ${country} but the billing country is ${billingCountry}.`);
  }
  if (!result.isValidFormat) throw refuse(`"${raw}" is not in the format of a ${country} VAT number.`);
  if (!result.isValid) throw refuse(`"${raw}" fails the ${country} VAT number checksum.`);
  return { number, country, format_valid: true, checksum_valid: true, checked_at: now.toISOString(), method: 'jsvat' };
}

/**
 * Which VAT applies (EU VAT rules for electronically supplied services): same country as the
 * seller → domestic rate; another member state with a valid VAT number → reverse charge;
 * another member state without → the buyer's rate; outside the EU → none.
 */
export function decideVat(sellerCountry: string, billingCountry: string, vatCheck: VatCheck | null, at: Date): VatDecision {
  if (billingCountry === sellerCountry) {
    return { country: billingCountry, rate_bp: vatRateBp(billingCountry, at), treatment: 'domestic', note: null };
  }
  if (!isEuCountry(billingCountry)) {
    return { country: billingCountry, rate_bp: 0, treatment: 'outside_eu', note: 'Outside the EU: no EU VAT charged.' };
  }
  if (vatCheck) return { country: billingCountry, rate_bp: 0, treatment: 'reverse_charge', note: REVERSE_CHARGE_NOTE };
  return { country: billingCountry, rate_bp: vatRateBp(billingCountry, at), treatment: 'eu_consumer', note: null };
}
