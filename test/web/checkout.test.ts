import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { disablePromo } from '../../src/domain/orders/promos-admin.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { request, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { checkout, priceOf, promo, waitForOrder } from '../helpers/orders.ts';

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
  const name = `Shop ${Math.random().toString(36).slice(2, 8)}`;
  const listingId = await insertLiveListing(db(), { name, ownerId: owner.userId });
  const res = await checkout(env, owner.key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 2 } }],
    billing_country: 'US',
    ...extra,
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return { order: res.body as { number: string; checkout_url: string; total_cents: number }, listingId, name };
}

/** `19800` → `USD 198\.00` (a pattern). */
const usd = (cents: number) => `USD ${(cents / 100).toFixed(2)}`.replace('.', '\\.');

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
  const { order, listingId, name } = await newOrder();
  const unit = await priceOf(db(), 'featured');
  const page = await openCheckout(order.checkout_url);
  // Two weeks at the price of one week each, the listing by its name.
  t.regex(await page.locator('[data-total]').innerText(), new RegExp(usd(2 * unit)));
  t.regex(await page.locator('[data-unit-price]').innerText(), new RegExp(`2 weeks × ${usd(unit)}`));
  t.is(await page.locator('[data-listing-name]').innerText(), name);
  t.false((await page.locator('main').innerText()).includes(`listing ${listingId}`));
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
  t.is((await db()('orders').where({ number: order.number }).first())!.status, 'pending');
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
  t.is((await db()('orders').where({ number: order.number }).first())!.status, 'pending');
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

test('one form: the billing name typed before pressing Pay reaches the order and its invoice', async (t) => {
  const { order } = await newOrder();
  const page = await openCheckout(order.checkout_url);
  await page.getByLabel('Billing name').fill('Jane Payer');
  await payByCard(page, '4242 4242 4242 4242');
  await page.waitForURL(/\/done$/);
  const paid = await waitForOrder(env, owner.key, order.number, ['fulfilled']);
  t.deepEqual(paid.billing, { name: 'Jane Payer', country: 'US', vat_number: null });
  t.is(paid.total_cents, order.total_cents);
  await page.context().close();
});

test('a new country re-prices on Pay: the new total is shown, nothing is charged, the typed values stay', async (t) => {
  const { order } = await newOrder();
  const net = 2 * (await priceOf(db(), 'featured'));
  const vat = Math.floor((net * 1900 + 5000) / 10000);
  const page = await openCheckout(order.checkout_url);
  await page.getByLabel('Billing name').fill('Erika Muster');
  await page.getByLabel('Country').fill('de');
  await payByCard(page, '4242 4242 4242 4242');
  t.regex(
    await page.locator('[data-notice]').innerText(),
    new RegExp(`VAT is ${usd(vat)} and the total is ${usd(net + vat)}. Nothing was charged`),
  );
  t.regex(await page.locator('[data-vat]').innerText(), new RegExp(usd(vat)));
  t.regex(await page.locator('[data-total]').innerText(), new RegExp(usd(net + vat)));
  t.is(await page.getByRole('button', { name: /^Pay USD/ }).innerText(), `Pay USD ${((net + vat) / 100).toFixed(2)}`);
  t.is(await db()('test_payments').where({ order_number: order.number }).first(), undefined);
  // What was typed is still there: the name, the country, the method and the card.
  t.is(await page.getByLabel('Billing name').inputValue(), 'Erika Muster');
  t.is(await page.getByLabel('Country').inputValue(), 'de');
  t.true(await page.getByLabel('Card', { exact: true }).isChecked());
  t.is(await page.getByLabel('Card number').inputValue(), '4242 4242 4242 4242');
  // Pay again to confirm: charged the new total.
  await page.getByRole('button', { name: /^Pay USD/ }).click();
  await page.waitForURL(/\/done$/);
  const paid = await waitForOrder(env, owner.key, order.number, ['fulfilled']);
  t.like(paid, {
    total_cents: net + vat,
    billing: { name: 'Erika Muster', country: 'DE', vat_number: null },
    vat: { treatment: 'eu_consumer' },
  });
  await page.context().close();
});

test('a VAT number is checked on Pay: an invalid one is refused with the reason, a valid one means reverse charge', async (t) => {
  const { order } = await newOrder();
  const net = 2 * (await priceOf(db(), 'featured'));
  const page = await openCheckout(order.checkout_url);
  await page.getByLabel('Billing name').fill('Acme SAS');
  await page.getByLabel('Country').fill('FR');
  await page.getByLabel('VAT number (optional)').fill('FR40303265046');
  await payByCard(page, '4242 4242 4242 4242');
  t.regex(await page.locator('.error-summary').innerText(), /checksum/);
  t.is(await page.getByLabel('Billing name').inputValue(), 'Acme SAS');
  await page.getByLabel('VAT number (optional)').fill('FR 40 303 265 045');
  await page.getByRole('button', { name: /^Pay USD/ }).click();
  t.regex(await page.locator('[data-vat-note]').innerText(), /Reverse charge/);
  t.regex(await page.locator('[data-notice]').innerText(), new RegExp(`total is ${usd(net)}. Nothing was charged`));
  const row = await db()('orders').where({ number: order.number }).first();
  t.deepEqual(row!.billing, { name: 'Acme SAS', country: 'FR', vat_number: 'FR40303265045' });
  t.like(row!.vat_check, { country: 'FR', checksum_valid: true });
  t.is(await db()('test_payments').where({ order_number: order.number }).first(), undefined);
  // The same details again (typed with spaces): nothing to confirm, it pays.
  await page.getByRole('button', { name: /^Pay USD/ }).click();
  await page.waitForURL(/\/done$/);
  t.like(await waitForOrder(env, owner.key, order.number, ['fulfilled']), { total_cents: net, vat: { treatment: 'reverse_charge' } });
  await page.context().close();
});

test('bad billing input is a clear message on the page, never a 500', async (t) => {
  const { order } = await newOrder();
  const path = order.checkout_url;
  const page = await openCheckout(order.checkout_url);
  await page.getByLabel('Billing name').fill('x'.repeat(200));
  await page.getByLabel('Country').fill('1');
  await payByCard(page, '4242 4242 4242 4242');
  t.regex(await page.locator('.error-summary').innerText(), /two-letter country code/);
  // Forged bodies (fields repeated or nested, overlong, missing), with the page's own CSRF token.
  const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
  for (const form of [
    'country=IE&country=DE&method=card',
    'name[a]=b&country=IE&method=card',
    `name=${'n'.repeat(300)}&country=IE&method=card`,
    '',
  ]) {
    const res = await page.request.post(`${path}/pay`, {
      data: `_csrf=${encodeURIComponent(csrf)}${form ? `&${form}` : ''}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      maxRedirects: 0,
    });
    t.true(res.status() >= 400 && res.status() < 500, `${form.slice(0, 40)}: ${res.status()}`);
    t.regex(await res.text(), /There is a problem|error-summary/);
  }
  t.is(await db()('test_payments').where({ order_number: order.number }).first(), undefined);
  await page.context().close();
});

/** Amounts on the page that wrap onto more than one line ("USD 49.0" / "0"). */
const brokenAmounts = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('main td, main span, main strong')]
      .filter((el) => /^−?USD [\d.]+$/.test((el.textContent ?? '').trim()))
      .map((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return { text: el.textContent, lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size };
      })
      .filter((m) => m.lines > 1),
  );

const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

test('at 390 px no amount breaks inside, and nothing scrolls sideways: pay page, orders, invoice', async (t) => {
  const email = `narrow-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createVerifiedUser(db(), email, 'narrow screen password');
  const { key } = await createApiKey(db(), user.id, 'narrow', ['account:read', 'orders:write']);
  const listingId = await insertLiveListing(db(), { name: 'Narrow Screens Inc', ownerId: user.id });
  const res = await checkout(env, key, {
    items: [
      { product: 'featured', listing_id: listingId, options: { weeks: 12 } },
      { product: 'categories', listing_id: listingId, options: { categories: ['ai', 'data'] } },
    ],
    billing_country: 'DE',
    promo_code: await promo(db(), { percent: 10 }),
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: env.baseUrl })).newPage();
  await page.goto(res.body.checkout_url);
  t.deepEqual(await brokenAmounts(page), [], 'pay page');
  t.false(await scrollsSideways(page), 'pay page');
  await payByCard(page, '4242 4242 4242 4242');
  await page.waitForURL(/\/done$/);
  await waitForOrder(env, key, res.body.number, ['fulfilled']);
  await page.goto('/signin');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill('narrow screen password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
  for (const path of ['/account/orders', `/account/orders/${res.body.number}`, `/account/orders/${res.body.number}/invoice`]) {
    await page.goto(path);
    t.regex(await page.locator('main').innerText(), /Narrow Screens Inc/, path);
    t.deepEqual(await brokenAmounts(page), [], path);
    t.false(await scrollsSideways(page), path);
  }
  await page.context().close();
});

test('a promo code that stopped being valid is dropped before anything is charged', async (t) => {
  const code = await promo(db(), { percent: 50 });
  const { order } = await newOrder({ promo_code: code });
  const full = 2 * (await priceOf(db(), 'featured'));
  const page = await openCheckout(order.checkout_url);
  t.regex(await page.locator('[data-total]').innerText(), new RegExp(usd(full / 2)));
  await disablePromo(db(), 'main', code);
  await payByCard(page, '4242 4242 4242 4242');
  t.regex(
    await page.locator('[data-notice]').innerText(),
    new RegExp(`promo code ${code} can no longer be used .*new total is ${usd(full)}`),
  );
  t.regex(await page.locator('[data-total]').innerText(), new RegExp(usd(full)));
  t.is(await db()('test_payments').where({ order_number: order.number }).first(), undefined);
  await payByCard(page, '4242 4242 4242 4242');
  await page.waitForURL(/\/done$/);
  t.like(await waitForOrder(env, owner.key, order.number, ['fulfilled']), { total_cents: full, promo: null });
  await page.context().close();
});

test('the page has a strict CSP; unknown and expired links are refused', async (t) => {
  const { order } = await newOrder();
  const res = await request(env, 'GET', new URL(order.checkout_url).pathname);
  t.is(res.status, 200);
  const csp = res.headers.get('content-security-policy')!;
  t.regex(csp, /script-src ('none'|'sha256-[^']+')(;|$)/, 'no script from elsewhere');
  t.false(csp.includes('unsafe-inline'));
  t.is((await request(env, 'GET', `/checkout/${'A'.repeat(43)}`)).status, 404);
  t.is((await request(env, 'GET', `/checkout/${order.number}`)).status, 404);
  await db()('orders')
    .where({ number: order.number })
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.is((await request(env, 'GET', new URL(order.checkout_url).pathname)).status, 410);
});
