import type { Knex } from 'knex';

/**
 * Invoices a business can file: each paid order keeps the invoice's label (`INV-MAIN-000042`,
 * unique across sites that share one seller) and the seller's details as they were when the
 * invoice was issued, so changing the site's settings later never rewrites an issued invoice.
 *
 * Backfill: orders invoiced before this migration get their label and the seller details the
 * site has now (the best record there is); paid orders without a number get the next numbers of
 * their site's counter in the order they were paid, so the sequence stays without gaps.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('orders', (t) => {
    t.text('invoice_label').unique().comment('The invoice number as printed: INV-{SITE}-{number, 6 digits}');
    t.jsonb('invoice_seller').comment('The seller named on the invoice when it was issued: name, address, vat_id, country');
  });
  await backfillInvoices(db);
}

/** Numbers paid orders that have none and gives every numbered one its label and seller (idempotent). */
export async function backfillInvoices(db: Knex): Promise<void> {
  await db.raw(`
    WITH unnumbered AS (
      SELECT o.id, o.site_id,
             row_number() OVER (PARTITION BY o.site_id ORDER BY o.paid_at, o.id) AS n
        FROM orders o
       WHERE o.paid_at IS NOT NULL AND o.invoice_number IS NULL
    ), numbered AS (
      UPDATE orders o
         SET invoice_number = coalesce((SELECT s.last_number FROM invoice_sequences s WHERE s.site_id = u.site_id), 0) + u.n
        FROM unnumbered u
       WHERE o.id = u.id
      RETURNING o.site_id, o.invoice_number
    )
    INSERT INTO invoice_sequences (site_id, last_number)
    SELECT site_id, max(invoice_number) FROM numbered GROUP BY site_id
    ON CONFLICT (site_id) DO UPDATE SET last_number = excluded.last_number`);
  await db.raw(`
    UPDATE orders o
       SET invoice_label = 'INV-' || upper(s.key) || '-' || lpad(o.invoice_number::text, greatest(6, length(o.invoice_number::text)), '0'),
           invoice_seller = jsonb_build_object(
             'name', coalesce(nullif(s.settings->>'seller_name', ''), s.name),
             'address', nullif(s.settings->>'seller_address', ''),
             'vat_id', nullif(s.settings->>'seller_vat_id', ''),
             'country', coalesce(s.settings->>'seller_country', ''))
      FROM sites s
     WHERE s.id = o.site_id AND o.invoice_number IS NOT NULL AND o.invoice_label IS NULL`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('orders', (t) => {
    t.dropColumn('invoice_seller');
    t.dropColumn('invoice_label');
  });
}
