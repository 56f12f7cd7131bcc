import type { Db } from '../../db/knex.ts';
import { invoiceLabel, invoiceSellerOf, sellerOf, type InvoiceSeller } from '../sites/seller.ts';

/** What an issued invoice keeps on its order: the site's next number, its printed label, the seller then. */
export interface IssuedInvoice {
  invoice_number: number;
  invoice_label: string;
  invoice_seller: InvoiceSeller;
}

/**
 * Issues the next invoice of a site inside the transaction that marks its order paid. The site's
 * counter row (invoice_sequences) stays locked until that transaction ends, so concurrent payments
 * take consecutive numbers, and a payment that rolls back gives its number back: no gaps, unlike a
 * sequence. The seller's details are read in the same transaction and kept with the invoice.
 */
export async function issueInvoice(trx: Db, siteId: number): Promise<IssuedInvoice> {
  const { rows } = (await trx.raw(
    `INSERT INTO invoice_sequences (site_id, last_number) VALUES (?, 1)
     ON CONFLICT (site_id) DO UPDATE SET last_number = invoice_sequences.last_number + 1 RETURNING last_number`,
    [siteId],
  )) as { rows: { last_number: number }[] };
  const number = rows[0]!.last_number;
  const site = await trx('sites').where({ id: siteId }).first('key', 'name', 'settings');
  return {
    invoice_number: number,
    invoice_label: invoiceLabel(site!.key, number),
    invoice_seller: invoiceSellerOf(sellerOf(site!.settings), site!.name),
  };
}
