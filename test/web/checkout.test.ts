import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { disablePromo } from '../../src/domain/orders/promos-admin.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { request, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, promo, waitForOrder } from '../helpers/orders.ts';

/** Chromium pays on /checkout/{token} with each method of the test provider. */

let env: TestEnv;
let browser: Browser;
let close: () => Promise<void>;
let owner: { userId: number; key: string };

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { TEST_PAYMENTS_CRYPTO_DELAY_MS: '300' }));
  await env.startWorkers();
  owner = await env.user();
});
test.after.always(() => close?.());

const db = () => env.services.db;

async function newOrder(extra: Record<string, unknown> = {}) {
  const listingId = await insertLiveListing(db(), { name: `Shop ${Math.random().toString(36).slice(2, 8)}`, ownerId: owner.userId });
  const res = await checkout(env, owner.key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 2 } }],
    billing_country: 'US',
    ...extra,
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { order: res.body as { number: string; checkout_url: string; total_cents: number }, listingId };
}

async function openCheckout(url: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(url);
  return page;
}

async function payByCard(page: Page, number: string) {
  await page.getByLabel('Card', { exact: true }).check();
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /^Pay USD/ }).click();
}

const placements = async (listingId: number) =>
  Number((await db()('featured_placements').where({ listing_id: listingId }).count({ n: '*' }))[0].n);

test('card 4242 pays; the order is fulfilled once', async (t) => {
  const { order, listingId } = await newOrder();
  const page = await openCheckout(order.checkout_url);
  t.regex(await page.locator('[data-total]').innerText(), /USD 99\.00/);
  await payByCard(page, '4242 4242 4242 4242');
  await page.waitForURL(/\/done$/);
  t.regex(await page.locator('h1').innerText(), /Thank you|Payment processing/);
  t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled'])).payment_method, 'card');
  t.is(await placements(listingId), 2);
  await page.context().close();
});

test('a declined card leaves the order pending with a clear message, and a retry can pay', async (t) => {
  const { order } = await newOrder();
  const page = await openCheckout(order.checkout_url);
  await payByCard(page, '4000 0000 0000 0002');
  t.regex(await page.locator('.error-summary').innerText(), /Your card was declined/);
  t.is((await db()('orders').where({ number: order.number }).first()).status, 'pending');
  await payByCard(page, '4242424242424242');
  await page.waitForURL(/\/done$/);
  t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled'])).status, 'fulfilled');
  await page.context().close();
});

test('card 3184 asks for an authentication step first', async (t) => {
  const { order } = await newOrder();
  const page = await openCheckout(order.checkout_url);
  await payByCard(page, '4000 0027 6000 3184');
  await page.waitForURL(/\/step\//);
  t.is(await page.locator('h1').innerText(), 'Authenticate your payment');
  t.is((await db()('orders').where({ number: order.number }).first()).status, 'pending');
  await page.getByRole('button', { name: 'Complete authentication' }).click();
  await page.waitForURL(/\/done$/);
  t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled'])).status, 'fulfilled');
  await page.context().close();
});

for (const [label, method] of [
  ['Mobile wallet', 'wallet'],
  ['Payment account', 'account'],
] as const) {
  test(`${label}: decline, then approve`, async (t) => {
    const { order } = await newOrder();
    const page = await openCheckout(order.checkout_url);
    await page.getByLabel(label, { exact: true }).check();
    await page.getByRole('button', { name: /^Pay USD/ }).click();
    await page.waitForURL(/\/step\//);
    await page.getByRole('button', { name: 'Decline payment' }).click();
    t.regex(await page.locator('.error-summary').innerText(), /declined/);
    await page.getByLabel(label, { exact: true }).check();
    await page.getByRole('button', { name: /^Pay USD/ }).click();
    await page.waitForURL(/\/step\//);
    await page.getByRole('button', { name: 'Approve payment' }).click();
    await page.waitForURL(/\/done$/);
    t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled'])).payment_method, method);
    await page.context().close();
  });
}

test('crypto goes processing, then confirms', async (t) => {
  const { order } = await newOrder();
  const page = await openCheckout(order.checkout_url);
  await page.getByLabel('Crypto', { exact: true }).check();
  await page.getByRole('button', { name: /^Pay USD/ }).click();
  await page.waitForURL(/\/done$/);
  t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled'])).payment_method, 'crypto');
  // The processing page reloads itself until the payment is confirmed.
  const shown = await page.waitForSelector('[data-order-status="fulfilled"], [data-order-status="paid"]', { timeout: 15_000 });
  t.regex((await shown.getAttribute('data-order-status'))!, /^(fulfilled|paid)$/);
  await page.context().close();
});

test('billing details re-price the order; an invalid VAT number is refused with the reason', async (t) => {
  const { order } = await newOrder();
  const page = await openCheckout(order.checkout_url);
  await page.getByLabel('Country').fill('DE');
  await page.getByRole('button', { name: 'Update billing details' }).click();
  t.regex(await page.locator('[data-vat]').innerText(), /USD 18\.81/);
  t.regex(await page.locator('[data-total]').innerText(), /USD 117\.81/);
  await page.getByLabel('Country').fill('FR');
  await page.getByLabel('VAT number (optional)').fill('FR40303265046');
  await page.getByRole('button', { name: 'Update billing details' }).click();
  t.regex(await page.locator('.error-summary').innerText(), /checksum/);
  await page.getByLabel('Country').fill('FR');
  await page.getByLabel('VAT number (optional)').fill('FR 40 303 265 045');
  await page.getByLabel('Billing name').fill('Acme SAS');
  await page.getByRole('button', { name: 'Update billing details' }).click();
  t.regex(await page.locator('[data-vat-note]').innerText(), /Reverse charge/);
  t.regex(await page.locator('[data-total]').innerText(), /USD 99\.00/);
  const row = await db()('orders').where({ number: order.number }).first();
  t.deepEqual(row.billing, { name: 'Acme SAS', country: 'FR', vat_number: 'FR40303265045' });
  t.is(row.total_cents, 9900);
  t.like(row.vat_check, { country: 'FR', checksum_valid: true });
  await page.context().close();
});

test('a promo code that stopped being valid is dropped before anything is charged', async (t) => {
  const code = await promo(db(), { percent: 50 });
  const { order } = await newOrder({ promo_code: code });
  const page = await openCheckout(order.checkout_url);
  t.regex(await page.locator('[data-total]').innerText(), /USD 49\.50/);
  await disablePromo(db(), 'main', code);
  await payByCard(page, '4242 4242 4242 4242');
  t.regex(
    await page.locator('[data-notice]').innerText(),
    new RegExp(`promo code ${code} can no longer be used .*new total is USD 99\\.00`),
  );
  t.regex(await page.locator('[data-total]').innerText(), /USD 99\.00/);
  t.is(await db()('test_payments').where({ order_number: order.number }).first(), undefined);
  await payByCard(page, '4242 4242 4242 4242');
  await page.waitForURL(/\/done$/);
  t.like(await waitForOrder(env, owner.key, order.number, ['fulfilled']), { total_cents: 9900, promo: null });
  await page.context().close();
});

test('the page has a strict CSP; unknown and expired links are refused', async (t) => {
  const { order } = await newOrder();
  const res = await request(env, 'GET', new URL(order.checkout_url).pathname);
  t.is(res.status, 200);
  const csp = res.headers.get('content-security-policy')!;
  t.regex(csp, /script-src 'nonce-[^']+'(;|$)/);
  t.false(csp.includes('unsafe-inline'));
  t.is((await request(env, 'GET', `/checkout/${'A'.repeat(43)}`)).status, 404);
  t.is((await request(env, 'GET', `/checkout/${order.number}`)).status, 404);
  await db()('orders')
    .where({ number: order.number })
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.is((await request(env, 'GET', new URL(order.checkout_url).pathname)).status, 410);
});
