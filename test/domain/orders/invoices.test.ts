import test from 'ava';
import { backfillInvoices } from '../../../src/db/migrations/033-invoice-snapshots.ts';
import { issueInvoice } from '../../../src/domain/orders/invoices.ts';
import { applyPayment, storePaymentEvent } from '../../../src/domain/orders/payment.ts';
import { toPaymentEvent } from '../../../src/domain/orders/payment-port.ts';
import { missingSellerDetails, setSellerDetails } from '../../../src/domain/sites/seller.ts';
import { sellerNotice } from '../../../src/embedded/seller-notice.ts';
import { api, startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { insertLiveListing } from '../../helpers/listings.ts';
import { succeededEvent } from '../../helpers/orders.ts';

// Invoice numbers per site without gaps, however payments race, and the seller kept as it was
// when each invoice was issued. Payments are applied as the order workflow's step applies them.

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const HOSTS: Record<string, string> = { main: 'localhost', makers: 'makers.localhost' };

/** A pending order on a site (through create_checkout). */
async function pendingOrder(site: 'main' | 'makers', key: string, userId: number) {
  const listingId = await insertLiveListing(db(), { name: `Inv ${Math.random().toString(36).slice(2, 8)}`, site, ownerId: userId });
  const res = await api(env, 'POST', '/orders/checkout', {
    key,
    body: { items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }], billing_country: 'US' },
    headers: { host: HOSTS[site]! },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body as { number: string; total_cents: number };
}

/** Stores the order's succeeded payment and applies it. */
async function pay(order: { number: string; total_cents: number }) {
  const event = succeededEvent(order.number, order.total_cents);
  const stored = await storePaymentEvent(db(), 'test', toPaymentEvent(event), event);
  return applyPayment(db(), env.services.config, order.number, stored.id);
}

const invoicesOf = async (site: string) =>
  db()('orders as o')
    .join('sites as s', 's.id', 'o.site_id')
    .where('s.key', site)
    .whereNotNull('o.invoice_number')
    .orderBy('o.invoice_number')
    .select('o.number', 'o.invoice_number', 'o.invoice_label', 'o.invoice_seller');

test.serial('concurrent payments on one site take consecutive invoice numbers; each site counts on its own', async (t) => {
  const buyer = await env.user();
  const main = await Promise.all(Array.from({ length: 6 }, () => pendingOrder('main', buyer.key, buyer.userId)));
  const makers = await Promise.all(Array.from({ length: 4 }, () => pendingOrder('makers', buyer.key, buyer.userId)));
  const mainId = (await db()('sites').where({ key: 'main' }).first('id'))!.id;
  // Payments that fail after taking a number roll it back with them: a sequence would leave holes.
  const failing = Array.from({ length: 3 }, () =>
    db()
      .transaction(async (trx) => {
        await issueInvoice(trx, mainId);
        throw new Error('the paying transaction fails');
      })
      .catch(() => 'rolled back'),
  );
  const outcomes = await Promise.all([...[...main, ...makers].map(pay), ...failing]);
  t.true(
    outcomes.slice(0, 10).every((o) => typeof o === 'object' && o.kind === 'paid'),
    JSON.stringify(outcomes),
  );

  const mainInvoices = await invoicesOf('main');
  t.deepEqual(
    mainInvoices.map((o) => o.invoice_number),
    [1, 2, 3, 4, 5, 6],
  );
  t.deepEqual(
    mainInvoices.map((o) => o.invoice_label),
    ['INV-MAIN-000001', 'INV-MAIN-000002', 'INV-MAIN-000003', 'INV-MAIN-000004', 'INV-MAIN-000005', 'INV-MAIN-000006'],
  );
  t.deepEqual(
    (await invoicesOf('makers')).map((o) => o.invoice_label),
    ['INV-MAKERS-000001', 'INV-MAKERS-000002', 'INV-MAKERS-000003', 'INV-MAKERS-000004'],
  );
  // The next payment continues where the counter stands;.
  const next = await pendingOrder('main', buyer.key, buyer.userId);
  await pay(next);
  t.is((await db()('orders').where({ number: next.number }).first())!.invoice_label, 'INV-MAIN-000007');
  const mail = await db()('mail_outbox')
    .where({ dedupe_key: `order-receipt:${next.number}` })
    .first();
  t.regex(mail!.subject, /\(invoice INV-MAIN-000007\)/);
  t.regex(mail!.body_text, /Invoice INV-MAIN-000007: http/);
});

test.serial('an invoice keeps the seller details that were true when it was issued', async (t) => {
  const buyer = await env.user();
  await setSellerDetails(db(), 'makers', {
    seller_name: 'Makers Weekly Ltd',
    seller_address: '2 Quay Street, Galway',
    seller_vat_id: 'IE6388047V',
  });
  const first = await pendingOrder('makers', buyer.key, buyer.userId);
  await pay(first);
  await setSellerDetails(db(), 'makers', { seller_name: 'Makers Media DAC', seller_address: '9 Dock Road, Cork' });
  const second = await pendingOrder('makers', buyer.key, buyer.userId);
  await pay(second);
  const kept = async (number: string) => (await db()('orders').where({ number }).first())!.invoice_seller;
  t.deepEqual(await kept(first.number), {
    name: 'Makers Weekly Ltd',
    address: '2 Quay Street, Galway',
    vat_id: 'IE6388047V',
    country: 'IE',
  });
  t.deepEqual(await kept(second.number), { name: 'Makers Media DAC', address: '9 Dock Road, Cork', vat_id: 'IE6388047V', country: 'IE' });
});

test.serial('the migration numbers paid orders that have no invoice in paid order and labels every invoice', async (t) => {
  const buyer = await env.user();
  const orders = await Promise.all(Array.from({ length: 3 }, () => pendingOrder('main', buyer.key, buyer.userId)));
  for (const o of orders) await pay(o);
  const before = (await db()('invoice_sequences')
    .join('sites', 'sites.id', 'invoice_sequences.site_id')
    .where('sites.key', 'main')
    .first('last_number'))!.last_number;
  // As orders paid before invoices were kept would be: no label or seller; two without a number either, paid in reverse.
  const [a, b, c] = orders.map((o) => o.number);
  await db()('orders').whereIn('number', [a!, b!, c!]).update({ invoice_label: null, invoice_seller: null });
  await db()('orders')
    .where({ number: c })
    .update({ invoice_number: null, paid_at: new Date('2026-01-01T00:00:00Z') });
  await db()('orders')
    .where({ number: b })
    .update({ invoice_number: null, paid_at: new Date('2026-01-02T00:00:00Z') });
  // What invoices issued then will name: the seller as set now.
  await setSellerDetails(db(), 'main', { seller_name: 'Listing Directory Ltd' });

  await backfillInvoices(db());
  await backfillInvoices(db());
  const row = async (number: string) => (await db()('orders').where({ number }).first())!;
  t.like(await row(c!), { invoice_number: before + 1, invoice_label: `INV-MAIN-${String(before + 1).padStart(6, '0')}` });
  t.like(await row(b!), { invoice_number: before + 2 });
  t.like((await row(a!)).invoice_seller, { name: 'Listing Directory Ltd', address: null, vat_id: null, country: 'IE' });
  t.truthy((await row(a!)).invoice_label);
  // The counter moved past them: the next payment continues without a gap or a duplicate.
  const next = await pendingOrder('main', buyer.key, buyer.userId);
  await pay(next);
  t.is((await row(next.number)).invoice_number, before + 3);
});

test.serial('what is missing for an invoice a business can file, and the start-up notice naming it', async (t) => {
  t.deepEqual(missingSellerDetails({ seller_name: null, seller_address: null, seller_vat_id: null, seller_country: 'IE' }), [
    'seller_name',
    'seller_address',
    'seller_vat_id',
  ]);
  // A seller outside the EU charges no VAT, so needs no VAT ID.
  t.deepEqual(
    missingSellerDetails({ seller_name: 'Acme Inc', seller_address: '1 Market St', seller_vat_id: null, seller_country: 'US' }),
    [],
  );
  const lines = await sellerNotice(db(), 'stripe');
  const mainLines = lines.filter((l) => l.includes('site main') || l.includes('--site main'));
  t.regex(mainLines.join('\n'), /site main has no seller_address, seller_vat_id: payments are refused until they are set/);
  t.regex(
    mainLines.join('\n'),
    /npm run admin -- sites:set --site main --seller-address "Street, City, Postcode" --seller-vat-id IE1234567X/,
  );
  t.regex(
    (await sellerNotice(db(), 'test')).join('\n'),
    /test payments work; a real provider \(PAYMENT_PROVIDER=stripe\) refuses payments/,
  );
});
