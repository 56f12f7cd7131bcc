import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { setSellerDetails } from '../../src/domain/sites/seller.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, postWebhook, succeededEvent, waitForOrder } from '../helpers/orders.ts';
import { WebClient } from '../helpers/web.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  await env.startWorkers();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const PASSWORD = 'orders page password';

async function buyer() {
  const email = `buyer-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const { key } = await createApiKey(db(), user.id, 'test', ['account:read', 'orders:write']);
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  return { user, key, client, email };
}

test.serial('the account lists orders; a paid order has a printable invoice with the reverse-charge note', async (t) => {
  const { user, key, client } = await buyer();
  const listingId = await insertLiveListing(db(), { name: 'Invoice Co', ownerId: user.id });
  const pending = (
    await checkout(env, key, { items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }], billing_country: 'US' })
  ).body;
  const order = (
    await checkout(env, key, { items: [{ product: 'launch', listing_id: listingId }], billing_country: 'FR', vat_number: 'FR40303265045' })
  ).body;
  await postWebhook(env, succeededEvent(order.number, order.total_cents));
  await waitForOrder(env, key, order.number, ['fulfilled']);

  const list = await client.get('/account/orders');
  t.is(list.status, 200);
  t.deepEqual(
    list
      .$('[data-order]')
      .map((_i, el) => list.$(el).attr('data-order'))
      .get(),
    [order.number, pending.number],
  );
  const pendingPage = await client.get(`/account/orders/${pending.number}`);
  t.is(pendingPage.$(`a[href="${new URL(pending.checkout_url).pathname}"]`).text(), 'Pay this order');

  const page = await client.get(`/account/orders/${order.number}`);
  t.is(page.$('[data-order-status]').attr('data-order-status'), 'fulfilled');
  t.is(page.$('[data-line-fulfilled="true"]').length, 1);
  const invoice = await client.get(`/account/orders/${order.number}/invoice`);
  t.is(invoice.status, 200);
  const { invoice_number } = (await db()('orders').where({ number: order.number }).first())!;
  t.is(invoice.$('[data-invoice-number]').text(), `INV-MAIN-${String(invoice_number).padStart(6, '0')}`);
  t.regex(invoice.$('[data-buyer]').text(), /VAT number: FR40303265045/);
  t.regex(invoice.$('[data-vat-note]').text(), /Reverse charge/);
  t.regex(invoice.text, /Seller/);
  // Until the admin sets a legal name, the seller is the site.
  t.is(invoice.$('[data-seller-name]').text(), 'Listing Directory');
  // Lines name the listing, never "listing 2".
  t.is(invoice.$('[data-listing-name]').text(), 'Invoice Co');
  t.false(invoice.text.includes(`listing ${listingId}`));
  t.regex(invoice.$('[data-unit-price]').text(), /1 item × USD \d+\.\d{2}/);
  t.false(page.text.includes(`listing ${listingId}`));
  t.regex(page.$('[data-line-fulfilled]').text(), /Paid launch for Invoice Co: fulfilled/);
  t.regex(list.$(`[data-order="${order.number}"]`).text(), /Paid launch for Invoice Co/);
  t.is(list.$(`[data-order="${order.number}"] [data-status]`).text(), 'Paid and fulfilled');
  t.is(list.$(`[data-order="${pending.number}"] [data-status]`).text(), 'Waiting for payment');

  // One listing's orders: those with a line for it, under its name.
  const otherListing = await insertLiveListing(db(), { name: 'Other Co', ownerId: user.id });
  const ofOther = await client.get(`/account/orders?listing=${otherListing}`);
  t.is(ofOther.status, 200);
  t.is(ofOther.$('h1').text(), 'Orders for Other Co');
  t.is(ofOther.$('[data-order]').length, 0);
  t.is(ofOther.$(`a[href="/account/listings/${otherListing}/promote"]`).text(), 'Promote Other Co');
  const ofInvoiceCo = await client.get(`/account/orders?listing=${listingId}`);
  t.is(ofInvoiceCo.$('[data-order]').length, 2);

  t.is((await client.get(`/account/orders/${pending.number}/invoice`)).status, 404);
  t.regex(pendingPage.$('[data-unit-price]').text(), /1 week × USD \d+\.\d{2}/);
  const stranger = await buyer();
  t.is((await stranger.client.get(`/account/orders/${order.number}`)).status, 404);
  t.is((await stranger.client.get(`/account/orders/${order.number}/invoice`)).status, 404);
  const anonymous = await new WebClient(env.baseUrl).get('/account/orders');
  t.is(anonymous.status, 303);
});

test.serial('an invoice carries the seller’s legal name, address and VAT ID and the buyer’s name, country and VAT number', async (t) => {
  const { user, key, client, email } = await buyer();
  const listingId = await insertLiveListing(db(), { name: 'Billed & Co', ownerId: user.id });
  const order = (
    await checkout(env, key, {
      items: [{ product: 'featured', listing_id: listingId, options: { weeks: 4 } }],
      billing_country: 'DE',
      vat_number: 'DE 129 273 398',
    })
  ).body;
  t.like(order.lines[0], { listing_name: 'Billed & Co', unit: 'week', quantity: 4 });
  await db()('orders')
    .where({ number: order.number })
    .update({ billing: { name: 'Billed & Co GmbH', country: 'DE', vat_number: 'DE129273398' } });
  await setSellerDetails(db(), 'main', {
    seller_name: 'Listing Directory Ltd',
    seller_address: '1 Main Street\nDublin 2',
    seller_vat_id: 'IE6388047V',
  });
  try {
    await postWebhook(env, succeededEvent(order.number, order.total_cents));
    await waitForOrder(env, key, order.number, ['fulfilled']);
    // The seller moves after the invoice was issued: the issued invoice keeps what was true then.
    await setSellerDetails(db(), 'main', { seller_name: 'Listing Directory Holdings Ltd', seller_address: '5 New Road, Cork' });
    const invoice = await client.get(`/account/orders/${order.number}/invoice`);
    t.is(invoice.status, 200);
    t.is(invoice.$('[data-seller-name]').text(), 'Listing Directory Ltd');
    t.is(invoice.$('[data-seller-address]').text(), '1 Main Street\nDublin 2');
    t.is(invoice.$('[data-seller-vat-id]').text(), 'IE6388047V');
    t.regex(invoice.$('[data-seller]').text(), /Country: IE/);
    t.is(invoice.$('[data-buyer-name]').text(), 'Billed & Co GmbH');
    t.regex(invoice.$('[data-buyer]').text(), /Country: DE/);
    t.regex(invoice.$('[data-buyer]').text(), /VAT number: DE129273398/);
    t.false(invoice.text.includes(email));
    t.is(invoice.$('[data-listing-name]').text(), 'Billed & Co');
    t.regex(invoice.$('[data-unit-price]').text(), /4 weeks × USD \d+\.\d{2}/);
  } finally {
    await setSellerDetails(db(), 'main', { seller_name: '', seller_address: '', seller_vat_id: '' });
  }
});

test('the test provider’s pay page lists the test card numbers, marked as test mode', async (t) => {
  const { user, key } = await buyer();
  const listingId = await insertLiveListing(db(), { name: 'Test Cards Co', ownerId: user.id });
  const order = (
    await checkout(env, key, { items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }], billing_country: 'US' })
  ).body;
  const page = await new WebClient(env.baseUrl).get(new URL(order.checkout_url).pathname);
  t.is(page.status, 200);
  const panel = page.$('[data-test-mode]');
  t.regex(panel.text(), /Test mode: no real money moves/);
  const cards = Object.fromEntries(
    panel
      .find('[data-test-card]')
      .map((_i, el) => [[page.$(el).attr('data-test-card'), page.$(el).text()]])
      .get() as [string, string][],
  );
  t.regex(cards.succeeds!, /^4242 4242 4242 4242: the payment succeeds/);
  t.regex(cards.declined!, /^4000 0000 0000 0002: the card is declined/);
  t.regex(cards.requires_action!, /^4000 0027 6000 3184: asks for 3-D Secure/);
  // The list sits with the card fields it is for.
  t.is(page.$('fieldset:has(input[name=card_number]) [data-test-mode]').length, 1);
});
