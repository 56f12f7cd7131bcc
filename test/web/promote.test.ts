import { randomBytes } from 'node:crypto';
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { readLaunchSettings } from '../../src/domain/launches/launch-settings.ts';
import { isoWeekLabel } from '../../src/workflows/contracts/weeks.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mondayIn, priceOf, promo } from '../helpers/orders.ts';
import { WebClient } from '../helpers/web.ts';

// A founder with no API key buys in the browser: the promote page of a listing (list_products,
// list_launch_weeks, quote_order, create_checkout), the pay page, then the order on /account/orders.
// Bad input is a sentence beside its field, never a 500, and nothing is saved.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  await env.startWorkers();
});
test.after.always(() => close?.());

const db = () => env.services.db;
const PASSWORD = 'promote page password';

async function founder(listingName: string) {
  const email = `founder-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const listingId = await insertLiveListing(db(), {
    name: listingName,
    ownerId: user.id,
    url: `https://${randomBytes(4).toString('hex')}.example.org/`,
  });
  return { user, email, listingId };
}

async function signIn(page: Page, email: string) {
  await signInOnPage(page, email, PASSWORD);
}

/** `19800` → `USD 198.00`. */
const usd = (cents: number) => `USD ${(cents / 100).toFixed(2)}`;

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

const orderCount = async (userId: number) => Number((await db()('orders').where({ user_id: userId }).count({ n: '*' }))[0]!.n);

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(
    `${label}: promote → featured for 2 weeks → review → continue → pay by card → the order on /account/orders, fulfilled`,
    async (t) => {
      const name = `Promo Co ${label}`;
      const { user, email, listingId } = await founder(name);
      t.is(Number((await db()('api_keys').where({ user_id: user.id }).count({ n: '*' }))[0]!.n), 0, 'no API key');
      const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
      t.teardown(() => context.close());
      const page = await context.newPage();
      await signIn(page, email);
      const narrow = viewport.width === 390;
      const nav = page.getByRole('navigation', { name: 'Main' });
      if (narrow) {
        // The header is one line with a menu, opened with the keyboard.
        t.false(await nav.getByRole('link', { name: 'API keys', exact: true }).isVisible());
        await page.locator('header summary').focus();
        await page.keyboard.press('Enter');
        await nav.getByRole('link', { name: 'API keys', exact: true }).waitFor();
        const header = await page.locator('header.site nav').boundingBox();
        t.true(header!.height < 70, `header on one line (${header!.height} px)`);
        await page.keyboard.press('Enter');
      } else t.true(await nav.getByRole('link', { name: 'API keys', exact: true }).isVisible());

      // The launch panel links to the promote page.
      await page.goto(`/account/listings/${listingId}/launch`);
      await page.getByRole('link', { name: 'Launch now or pick a week' }).click();
      await page.waitForURL(new RegExp(`/account/listings/${listingId}/promote$`));
      t.is(await page.locator('h1').innerText(), `Promote ${name}`);
      const unit = await priceOf(db(), 'featured');
      t.regex(
        await page.locator('[data-product=featured] [data-price]').innerText(),
        new RegExp(`${usd(unit).replace('.', '\\.')} a week`),
      );
      // The launch week list names each week with its dates and the paid places left.
      const weekOption = (await page.locator('#f-launch-week option[data-week]').first().innerText()).trim();
      t.regex(
        weekOption,
        /^Week \d{1,2} · \d{1,2}(–| \w{3} (\d{4} )?– )\d{1,2} \w{3} \d{4} — (\d+ paid places? left|no paid places left)$/,
      );
      t.regex(await page.locator('#f-billboard-start_date-hint').innerText(), /^The first free date is \d{1,2} \w{3} \d{4}\.$/);
      if (narrow) t.true((await scrollWidth(page)) <= 390, 'promote page: no sideways scroll');

      await page.getByLabel('Add featured placement to the order').check();
      await page.getByLabel('Number of weeks').fill('2');
      await page.getByLabel('Billing country').fill('US');
      await page.getByRole('button', { name: 'Review order' }).click();
      const review = page.locator('[data-quote]');
      await review.waitFor();
      t.is(await review.locator('[data-listing-name]').innerText(), name);
      t.regex(await review.locator('[data-unit-price]').innerText(), new RegExp(`2 weeks × ${usd(unit).replace('.', '\\.')}`));
      t.regex(await review.locator('[data-vat]').innerText(), /USD 0\.00/);
      t.regex(await review.locator('[data-vat]').locator('xpath=..').innerText(), /outside the EU/);
      t.is(await review.locator('[data-total]').innerText(), usd(2 * unit));
      t.is(await orderCount(user.id), 0, 'reviewing saves nothing');
      if (narrow) t.true((await scrollWidth(page)) <= 390, 'review: no sideways scroll');

      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.waitForURL(/\/checkout\/[A-Za-z0-9_-]{43}$/);
      t.regex(await page.locator('[data-total]').innerText(), new RegExp(usd(2 * unit).replace('.', '\\.')));
      if (narrow) t.true((await scrollWidth(page)) <= 390, 'pay page: no sideways scroll');
      await page.getByLabel('Card', { exact: true }).check();
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiry').fill('12/34');
      await page.getByLabel('CVC').fill('123');
      await page.getByRole('button', { name: /^Pay USD/ }).click();
      await page.waitForURL(/\/done$/);

      const number = (await db()('orders').where({ user_id: user.id }).first('number'))!.number as string;
      await eventually('the order fulfilled', async () => (await db()('orders').where({ number }).first('status'))?.status === 'fulfilled');
      await page.goto('/account/orders');
      const row = page.locator(`[data-order="${number}"]`);
      t.regex(await row.innerText(), new RegExp(`Featured placement for ${name}`));
      t.is(await row.locator('[data-status]').getAttribute('data-status'), 'fulfilled');
      t.regex(await row.locator('[data-status]').innerText(), /Paid and fulfilled/);
      if (narrow) t.true((await scrollWidth(page)) <= 390, 'orders: no sideways scroll');
      // The listing's own orders.
      await page.goto(`/account/orders?listing=${listingId}`);
      t.is(await page.locator('h1').innerText(), `Orders for ${name}`);
      t.is(await page.locator('[data-order]').count(), 1);
    },
  );
}

/** A signed-in WebClient of a founder with a live listing, and the promote form's CSRF token. */
async function formClient(listingName: string) {
  const f = await founder(listingName);
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(f.email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  const _csrf = await client.csrfFrom(`/account/listings/${f.listingId}/promote`);
  return { ...f, client, _csrf, path: `/account/listings/${f.listingId}/promote` };
}

const errorsOf = (res: { $: import('cheerio').CheerioAPI }) =>
  res
    .$('.error-summary li')
    .map((_i, el) => res.$(el).text())
    .get();

test.serial('bad input is a sentence beside its field, never a 500, and nothing is saved', async (t) => {
  const { user, client, _csrf, path } = await formClient('Careful Co');
  const base = { _csrf, billing_country: 'US' };

  const unknown = await client.post(path, { ...base, products: 'rocket' });
  t.is(unknown.status, 400);
  t.deepEqual(errorsOf(unknown), ['This site does not sell “rocket”. Choose from the products below.']);

  const nothing = await client.post(path, { ...base });
  t.is(nothing.status, 400);
  t.deepEqual(errorsOf(nothing), ['Choose at least one thing to buy.']);

  const weeks = await client.post(path, { ...base, products: 'featured', 'featured-weeks': '99' });
  t.is(weeks.status, 400);
  t.regex(weeks.$('#f-featured-weeks-error').text(), /Featured placement: enter a whole number from 1 to 12 \(weeks\)\./);
  t.is(weeks.$('#f-featured-weeks').attr('value'), '99', 'the typed value is kept');

  const past = await client.post(path, { ...base, products: 'launch', 'launch-week': isoWeekLabel(mondayIn(-2)) });
  t.is(past.status, 422);
  t.regex(past.$('#f-launch-week-error').text(), /^Paid launch: The week \d{4}-\d{2}-\d{2} is in the past\.$/);
  t.is(past.$('.error-summary a[href="#f-launch-week"]').length, 1);

  const vat = await client.post(path, {
    ...base,
    billing_country: 'DE',
    vat_number: 'DE000000000',
    products: 'featured',
    'featured-weeks': '1',
  });
  t.is(vat.status, 422);
  t.true(vat.$('#f-vat_number-error').text().length > 10, vat.$('#f-vat_number-error').text());
  t.is(vat.$('#f-vat_number').attr('aria-invalid'), 'true');

  const code = await client.post(path, { ...base, promo_code: 'NO-SUCH-CODE', products: 'featured', 'featured-weeks': '1' });
  t.is(code.status, 422);
  t.is(code.$('#f-promo_code-error').text(), 'There is no such promo code.');

  const country = await client.post(path, { _csrf, products: 'featured', 'featured-weeks': '1' });
  t.is(country.status, 400);
  t.regex(country.$('#f-billing_country-error').text(), /two letters/);

  // Continue to payment with bad input: the same sentences, and no order.
  const bad = await client.post(`${path}/checkout`, { ...base, products: 'launch', 'launch-week': isoWeekLabel(mondayIn(-1)) });
  t.is(bad.status, 422);
  t.regex(bad.$('#f-launch-week-error').text(), /is in the past/);
  t.is(await orderCount(user.id), 0, 'nothing half-written');

  // A valid promo code shows what it takes off in the review.
  const good = await promo(db(), { percent: 10 });
  const reviewed = await client.post(path, { ...base, promo_code: good.toLowerCase(), products: 'featured', 'featured-weeks': '1' });
  t.is(reviewed.status, 200);
  t.regex(reviewed.$('[data-quote]').text(), new RegExp(`Promo code ${good}`));
  t.is(reviewed.$('[data-quote] input[type=hidden][name=promo_code]').attr('value'), good.toLowerCase());
  t.is(await orderCount(user.id), 0);
});

test.serial('Continue to payment pressed twice builds one order: the reviewed fields and the review’s one-time key', async (t) => {
  const { user, client, _csrf, path } = await formClient('Twice Co');
  const reviewed = await client.post(path, { _csrf, billing_country: 'US', products: 'featured', 'featured-weeks': '3' });
  t.is(reviewed.status, 200);
  const form = reviewed.$('[data-quote] form');
  t.is(form.attr('action'), `${path}/checkout`);
  const fields: Record<string, string | string[]> = {};
  form.find('input[type=hidden]').each((_i, el) => {
    const [name, value] = [reviewed.$(el).attr('name')!, reviewed.$(el).attr('value') ?? ''];
    fields[name] = fields[name] === undefined ? value : [fields[name]].flat().concat(value);
  });
  t.deepEqual(Object.keys(fields).sort(), ['_csrf', 'billing_country', 'checkout_key', 'featured-weeks', 'products']);
  const first = await client.post(`${path}/checkout`, fields);
  const second = await client.post(`${path}/checkout`, fields);
  t.is(first.status, 303);
  t.regex(first.location!, /^\/checkout\/[A-Za-z0-9_-]{43}$/);
  t.is(second.location, first.location);
  t.is(await orderCount(user.id), 1);
  const order = (await db()('orders').where({ user_id: user.id }).first())!;
  t.like(order.quote.lines[0], { product: 'featured', quantity: 3, listing_name: 'Twice Co' });
});

test.serial('a week without a paid place left is refused as sold out, naming the next week with room', async (t) => {
  const { user, client, _csrf, path } = await formClient('Late Co');
  const site = (await db()('sites').where({ key: 'main' }).first('id'))!;
  const { paid_slots_per_week: perWeek } = await readLaunchSettings(db(), site.id);
  t.true(perWeek > 0, 'the main site sells paid launches');
  const week = mondayIn(3);
  // Other founders' paid launches fill the week.
  await db()('launch_weeks').insert({ site_id: site.id, week_start: week }).onConflict(['site_id', 'week_start']).ignore();
  for (let i = 0; i < perWeek; i++) {
    const other = await insertLiveListing(db(), {
      name: `Full ${i}`,
      url: `https://full${i}-${randomBytes(3).toString('hex')}.example.net/`,
    });
    await db()('launch_slots').insert({ listing_id: other, site_id: site.id, week_start: week, kind: 'paid' });
  }
  const page = await client.get(path);
  t.is(page.$(`#f-launch-week option[value="${isoWeekLabel(week)}"]`).attr('disabled'), 'disabled');
  t.regex(page.$(`#f-launch-week option[value="${isoWeekLabel(week)}"]`).text(), /no paid places left$/);
  const res = await client.post(path, { _csrf, billing_country: 'US', products: 'launch', 'launch-week': isoWeekLabel(week) });
  t.is(res.status, 409);
  t.regex(res.$('#f-launch-week-error').text(), /^Paid launch: No paid launch slot is left in \d{4}-W\d{2}.*the next week with room is/);
  t.is(res.$('.error-summary a[href="#f-launch-week"]').length, 1);
  t.is(await orderCount(user.id), 0);
});

test.serial('someone else’s listing: the promote page and its orders are a 404 page; signed out, the sign-in page', async (t) => {
  const owner = await founder('Owned Co');
  const { client, _csrf } = await formClient('Stranger Co');
  const theirs = `/account/listings/${owner.listingId}/promote`;
  t.is((await client.get(theirs)).status, 404);
  const post = await client.post(theirs, { _csrf, billing_country: 'US', products: 'featured', 'featured-weeks': '1' });
  t.is(post.status, 404);
  t.false(post.text.includes('Owned Co'));
  t.is(
    (await client.post(`${theirs}/checkout`, { _csrf, billing_country: 'US', products: 'featured', 'featured-weeks': '1' })).status,
    404,
  );
  t.is(await orderCount(owner.user.id), 0);
  const orders = await client.get(`/account/orders?listing=${owner.listingId}`);
  t.is(orders.status, 404);
  t.false(orders.text.includes('Owned Co'));
  for (const bad of ['abc', '0', '99999999999']) {
    t.is((await client.get(`/account/orders?listing=${bad}`)).status, 404, bad);
    t.is((await client.get(`/account/listings/${bad}/promote`)).status, 404, bad);
  }
  t.is((await new WebClient(env.baseUrl).get(`/account/listings/${owner.listingId}/promote`)).status, 303);
});
