import { randomBytes } from 'node:crypto';
import test from 'ava';
import { consolePerson, STAFF_PASSWORD, verifyFactor } from '../helpers/staff-cast.ts';
import type { Browser } from 'playwright-core';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { axeClean } from '../helpers/axe.ts';
import { fitsWidth, signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { paidOrder } from '../helpers/orders.ts';
import { WebClient } from '../helpers/web.ts';

// The site team's console in the browser: support finds an order by the buyer's email, opens it,
// refunds its featured line with a reason (after a page saying what will end), the placement is
// gone, and an admin reads the refund in the audit log; at 390 px and 1280 px, axe on each page.
// Then the boundaries: a moderator sees no refund form and a forced POST is refused; a person
// without a role gets the 403 page; staff of another site get 404.

const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {}, { clock }));
  await env.startWorkers();
});
test.after.always(() => close?.());

const db = () => env.services.db;
const person = (roles: StaffRole[], site: string | null = 'main') => consolePerson(env, clock, roles, site);
const withFactor = (userId: number) => verifyFactor(env, clock, userId);
const unique = () => randomBytes(4).toString('hex');
const PASSWORD = STAFF_PASSWORD;

/** A buyer's paid, fulfilled order of one featured line for this week and next. */
async function paidFeaturedOrder() {
  const buyer = await env.user(['account:read', 'orders:write', 'listings:write']);
  const listing = await insertLiveListing(db(), {
    name: `Console Co ${unique()}`,
    ownerId: buyer.userId,
    url: `https://c-${unique()}.example/`,
  });
  const items = [{ product: 'featured', listing_id: listing, options: { weeks: 2, start_week: isoWeekStart(clock.now()) } }];
  const number = await paidOrder(env, buyer.key, items);
  const email = (await db()('users').where({ id: buyer.userId }).first('email'))!.email as string;
  return { number, listing, email };
}

for (const [label, viewport] of [
  ['1280 px', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(
    `${label}: support finds an order by email, refunds its featured line; the placement is gone; the admin sees it in the audit log`,
    async (t) => {
      const order = await paidFeaturedOrder();
      t.is((await db()('featured_placements').where({ listing_id: order.listing })).length, 2);
      const support = await person(['support']);
      const admin = await person(['admin'], null);

      const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
      const page = await context.newPage();
      await signInOnPage(page, support.email, PASSWORD);
      // Without a second factor in this session, the console sends the person to verify one first.
      await page.goto('/staff');
      await page.waitForURL(/\/account\/second-factor\?return_to=%2Fstaff/);
      await withFactor(support.userId);
      await page.goto('/staff');
      await t.notThrowsAsync(page.getByText('Find orders, refund them and replay stuck ones').waitFor());
      t.is(await page.getByRole('link', { name: 'Read and export the audit log of staff actions' }).count(), 0);
      await axeClean(t, page);

      await page.getByRole('link', { name: 'Find orders, refund them and replay stuck ones' }).click();
      await page.getByLabel('Buyer’s email').fill(order.email.toUpperCase());
      await page.getByRole('button', { name: 'Find orders' }).click();
      const row = page.locator(`tr[data-order="${order.number}"]`);
      await row.waitFor({ timeout: 5000 }).catch(async (err: unknown) => {
        t.log(page.url(), await page.locator('main').innerText());
        throw err;
      });
      t.true(await fitsWidth(page), 'the results fit the screen');
      await axeClean(t, page);

      await row.getByRole('link', { name: order.number }).click();
      await page.waitForURL(new RegExp(`/staff/orders/${order.number}$`));
      t.regex(await page.locator('[data-buyer]').innerText(), new RegExp(order.email));
      t.truthy(await page.getByRole('link', { name: 'open it in the Temporal UI' }).getAttribute('href'));
      t.true(await fitsWidth(page), 'the order page fits the screen');
      await axeClean(t, page);

      // Without a reason, the browser keeps the form; a forced empty reason is a sentence, not a refund.
      await page.getByRole('button', { name: 'Refund this line…' }).click();
      t.regex(page.url(), new RegExp(`/staff/orders/${order.number}$`));
      await page.getByLabel(/Why refund this line/).fill('Buyer asked: wrong listing');
      await page.getByRole('button', { name: 'Refund this line…' }).click();
      await page.locator('[data-will-end]').waitFor();
      t.regex(await page.locator('[data-will-end]').innerText(), /featured placement/);
      t.is((await db()('featured_placements').where({ listing_id: order.listing })).length, 2, 'nothing ends before the confirmation');
      await axeClean(t, page);

      await page.getByRole('button', { name: 'Refund and end it' }).click();
      await page.waitForURL(/refunded=0/);
      await page.locator('[data-ended]').first().waitFor();
      t.deepEqual(
        await db()('featured_placements').where({ listing_id: order.listing }).andWhere('week_start', '>=', isoWeekStart(clock.now())),
        [],
      );
      t.is(await page.getByRole('button', { name: 'Refund this line…' }).count(), 0, 'no refund form for a refunded line');
      await axeClean(t, page);
      await context.close();

      const adminContext = await browser.newContext({ baseURL: env.baseUrl, viewport });
      const adminPage = await adminContext.newPage();
      await signInOnPage(adminPage, admin.email, PASSWORD);
      await withFactor(admin.userId);
      await adminPage.goto(`/staff/audit?target_id=${order.number}`);
      const refundRow = adminPage.locator(`tr[data-audit="staff_refund_order_line"][data-target="${order.number}"]`);
      await refundRow.waitFor();
      t.regex(await refundRow.innerText(), new RegExp(`${support.email}[\\s\\S]*Refunded[\\s\\S]*Buyer asked: wrong listing`));
      t.true(await fitsWidth(adminPage), 'the audit log fits the screen');
      await axeClean(t, adminPage);
      const csv = await adminPage.request.get(`/staff/audit/export?format=csv&target_id=${order.number}`);
      t.is(csv.status(), 200);
      t.regex(await csv.text(), /staff_refund_order_line/);
      await adminContext.close();
    },
  );
}

test.serial('a moderator sees no orders and no refund form; a forced refund is refused and refunds nothing', async (t) => {
  const order = await paidFeaturedOrder();
  const moderator = await person(['moderator']);
  const web = new WebClient(env.baseUrl);
  t.is((await web.signIn(moderator.email, PASSWORD)).status, 303);
  await withFactor(moderator.userId);
  const home = await web.get('/staff');
  t.is(home.status, 200);
  t.is(home.$('a[href="/staff/orders"]').length, 0);
  t.is(home.headers.get('cache-control'), 'no-store, private');
  const orderPage = await web.get(`/staff/orders/${order.number}`);
  t.is(orderPage.status, 403);
  t.is(orderPage.$('form.refund-form').length, 0);
  const _csrf = await web.csrfFrom('/account');
  const forced = await web.post(`/staff/orders/${order.number}/lines/0/refund`, { _csrf, reason: 'forced', confirm: 'yes' });
  t.is(forced.status, 403);
  t.is((await db()('featured_placements').where({ listing_id: order.listing })).length, 2);
  t.is(await db()('staff_audit').where({ operation: 'staff_refund_order_line', target_id: order.number }).first(), undefined);
  t.is((await web.get('/staff/audit')).status, 403);
});

test.serial(
  'a person without a staff role gets the 403 page in words; staff of another site a 404; a visitor signs in first',
  async (t) => {
    const nobody = await person([]);
    const web = new WebClient(env.baseUrl);
    await web.signIn(nobody.email, PASSWORD);
    for (const path of ['/staff', '/staff/orders', '/staff/audit']) {
      const res = await web.get(path);
      t.is(res.status, 403, path);
      t.regex(res.$('main').text(), /for the site team/);
      t.is(res.headers.get('cache-control'), 'no-store, private');
    }
    const elsewhere = await person(['support'], 'makers');
    const staffWeb = new WebClient(env.baseUrl);
    await staffWeb.signIn(elsewhere.email, PASSWORD);
    await withFactor(elsewhere.userId);
    t.is((await staffWeb.get('/staff/orders')).status, 404);
    const visitor = await new WebClient(env.baseUrl).get('/staff');
    t.is(visitor.status, 303);
    t.regex(visitor.location ?? '', /^\/signin\?return_to=%2Fstaff/);
  },
);
