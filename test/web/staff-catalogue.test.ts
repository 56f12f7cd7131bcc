import { randomBytes } from 'node:crypto';
import test from 'ava';
import { consolePerson, STAFF_PASSWORD, verifyFactor } from '../helpers/staff-cast.ts';
import type { Browser, Page } from 'playwright-core';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';

// The catalogue in the browser for a site's admin, at 390 px and 1280 px with axe on each page:
// a price change says old → new before it is made, and asks for the second factor again once the
// last one is over 10 minutes old; promo codes are created (a refused one says why) and disabled;
// paid slots and the seller's details are changed after a page naming each change. Then the
// boundaries: support and moderators get 403, and a forced price change changes nothing.

const MINUTE = 60_000;
const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {}, { clock }));
});
test.after.always(() => close?.());

const db = () => env.services.db;
const person = (roles: StaffRole[]) => consolePerson(env, clock, roles, null);
const withFactor = (userId: number) => verifyFactor(env, clock, userId);
const unique = () => randomBytes(4).toString('hex');
const PASSWORD = STAFF_PASSWORD;
const PATH = '/staff/catalogue';

/** The person's sessions count as verified with a second factor now (the factor itself is second-factor.test.ts's). */
const priceOf = async (key: string) =>
  (await db()('products')
    .where('products.key', key)
    .join('sites', 'sites.id', 'products.site_id')
    .where('sites.key', 'main')
    .first('price_cents'))!.price_cents;

async function checkPage(
  t: { deepEqual: (a: unknown, b: unknown, m?: string) => void; true: (v: boolean, m?: string) => void },
  page: Page,
  what: string,
) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
  t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${what} fits the screen`);
}

for (const [label, viewport] of [
  ['1280 px', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(
    `${label}: the admin changes a price (the factor asked again when stale), creates and disables a promo code, sets paid slots and the seller`,
    async (t) => {
      t.timeout(120_000);
      const admin = await person(['admin']);
      const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
      t.teardown(() => context.close());
      const page = await context.newPage();
      await signInOnPage(page, admin.email, PASSWORD);
      await withFactor(admin.userId);
      await page.goto('/staff');
      await page.getByRole('link', { name: 'Set products, prices, promo codes, paid slots and invoice details' }).click();
      await page.waitForURL(new RegExp(`${PATH}$`));
      await checkPage(t, page, 'the catalogue');

      // A price change: old → new in words first; nothing changes before the confirmation.
      const old = await priceOf('featured');
      const newDollars = ((old + 500) / 100).toFixed(2);
      const row = page.locator('tr[data-product="featured"]');
      await row.getByLabel(/New price of Featured placement/).fill(newDollars);
      await row.getByRole('button', { name: 'Change the price…' }).click();
      const change = page.locator('[data-change]');
      await change.waitFor();
      t.is(await change.innerText(), `From USD ${(old / 100).toFixed(2)} per week to USD ${newDollars} per week, before VAT.`);
      t.is(await priceOf('featured'), old, 'nothing changes before the confirmation');
      await checkPage(t, page, 'the price confirmation');
      await page.getByRole('button', { name: 'Set the new price' }).click();
      await page.waitForURL(/done=price/);
      t.is(await priceOf('featured'), old + 500);
      t.regex(await page.locator('tr[data-product="featured"] [data-price]').innerText(), new RegExp(`USD ${newDollars} per week`));

      // Eleven minutes on, a price change is a money action with a stale factor: asked again first.
      clock.advance(11 * MINUTE);
      await row.getByLabel(/New price of Featured placement/).fill('1.00');
      await row.getByRole('button', { name: 'Change the price…' }).click();
      await page.waitForURL(/\/account\/second-factor\?.*again=1/, { timeout: 5000 }).catch(async (err: unknown) => {
        t.log(page.url(), await page.locator('main').innerText());
        throw err;
      });
      t.is(new URL(page.url()).searchParams.get('return_to'), '/staff/catalogue', 'back to the catalogue after the factor');
      t.is(await priceOf('featured'), old + 500, 'a stale factor changes nothing');
      await withFactor(admin.userId);
      await page.goto(PATH);
      await row.getByLabel(/New price of Featured placement/).fill('1.00');
      await row.getByRole('button', { name: 'Change the price…' }).click();
      await page.getByRole('button', { name: 'Set the new price' }).click();
      await page.waitForURL(/done=price/);
      t.is(await priceOf('featured'), 100);

      // A promo code: a refused one says why and keeps what was typed; then created, then disabled.
      const code = `WEB${unique()}`.toUpperCase();
      const form = page.locator('form.promo-form');
      await form.getByLabel('Code', { exact: true }).fill(code);
      await form.getByLabel('Percent off').fill('150');
      await form.getByRole('button', { name: 'Create the promo code' }).click();
      await page.locator('.error-summary').waitFor();
      t.regex(await page.locator('.error-summary').innerText(), /at most 100/);
      t.is(await page.locator('form.promo-form').getByLabel('Code', { exact: true }).inputValue(), code);
      await checkPage(t, page, 'the catalogue with a refused promo code');
      await page.locator('form.promo-form').getByLabel('Percent off').fill('15');
      await page.locator('form.promo-form').getByLabel('Paid launch').check();
      await page.locator('form.promo-form').getByRole('button', { name: 'Create the promo code' }).click();
      await page.waitForURL(/done=promo/);
      const promo = page.locator(`tr[data-promo="${code}"]`);
      t.regex(await promo.innerText(), /15% off Paid launch/);
      await promo.getByRole('button', { name: `Disable ${code}` }).click();
      await page.waitForURL(/done=disabled/);
      t.regex(await page.locator(`tr[data-promo="${code}"]`).innerText(), /Disabled/);
      t.truthy((await db()('promo_codes').where({ code }).first())!.disabled_at);

      // Paid slots and the seller: a page names each change, from → to.
      const slots = String(viewport.width);
      const settings = page.locator('form.settings-form');
      await settings.getByLabel('Paid launches per week').fill(slots);
      await settings.getByLabel('Seller’s legal name on invoices').fill(`Web Seller ${unique()}`);
      await settings.getByRole('button', { name: 'Change these settings…' }).click();
      await change.waitFor();
      t.regex(
        await change.innerText(),
        new RegExp(`Paid launches per week: from \\d+ to ${slots}[\\s\\S]*legal name on invoices: from .+ to Web Seller`),
      );
      await checkPage(t, page, 'the settings confirmation');
      await page.getByRole('button', { name: 'Change them' }).click();
      await page.waitForURL(/done=settings/);
      t.is(await page.locator('form.settings-form').getByLabel('Paid launches per week').inputValue(), slots);
      await checkPage(t, page, 'the catalogue after the changes');
      const audited = await db()('staff_audit').where({ user_id: admin.userId }).pluck('operation');
      for (const op of ['staff_set_product_price', 'staff_create_promo_code', 'staff_disable_promo_code', 'staff_set_catalogue_settings'])
        t.true(audited.includes(op), op);
    },
  );
}

test.serial('support and moderators get 403 on the catalogue; a forced price change changes nothing', async (t) => {
  const before = await priceOf('billboard');
  for (const role of ['support', 'moderator'] as const) {
    const who = await person([role]);
    const web = new WebClient(env.baseUrl);
    await web.signIn(who.email, PASSWORD);
    await withFactor(who.userId);
    t.is((await web.get(PATH)).status, 403, role);
    const _csrf = await web.csrfFrom('/account');
    const forced = await web.post(`${PATH}/products/billboard/price`, { _csrf, price: '0', confirm: 'yes' });
    t.is(forced.status, 403, role);
    const promo = await web.post(`${PATH}/promo-codes`, { _csrf, code: `FORCED${role}`, percent: '50' });
    t.is(promo.status, 403, role);
  }
  t.is(await priceOf('billboard'), before);
  t.is(await db()('promo_codes').where('code', 'like', 'FORCED%').first(), undefined);
});
