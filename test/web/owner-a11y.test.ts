import { randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// axe-core over every owner page, signed in, at desktop width and at 390 px: no serious or
// critical violation, and at 390 px no page scrolls sideways. The promote review and the pay page
// are reached the way a founder reaches them (Review order, Continue to payment); the order, its
// page and invoice after paying by test card.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  await env.startWorkers();
});
test.after.always(() => close?.());

const db = () => env.services.db;
const PASSWORD = 'owner pages password';

async function audit(t: ExecutionContext, page: Page, what: string, narrow: boolean) {
  t.deepEqual(await seriousViolations(page), [], `${what}: no serious or critical axe violations`);
  if (narrow) {
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    t.true(width <= 390, `${what}: scrollWidth ${width} at 390 px`);
  }
}

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(`${label}: every owner page passes axe-core`, async (t) => {
    const email = `a11y-${randomBytes(4).toString('hex')}@example.com`;
    const user = await createVerifiedUser(db(), email, PASSWORD);
    const name = `Accessible Co ${label}`;
    const listingId = await insertLiveListing(db(), {
      name,
      ownerId: user.id,
      url: `https://${randomBytes(4).toString('hex')}.example.org/`,
    });
    const narrow = viewport.width === 390;
    const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
    t.teardown(() => context.close());
    const page = await context.newPage();

    await page.goto('/signin');
    await audit(t, page, 'sign-in', narrow);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/account$/);

    for (const path of [
      '/account',
      '/account/keys',
      '/account/connected-apps',
      '/account/listings',
      `/account/listings/${listingId}`,
      `/account/listings/${listingId}/story`,
      `/account/listings/${listingId}/promote`,
      '/account/founder-profile',
      '/account/claims',
      '/account/notifications',
      '/account/orders',
      `/account/orders?listing=${listingId}`,
      '/launches',
    ]) {
      const res = await page.goto(path);
      t.is(res?.status(), 200, path);
      await audit(t, page, path, narrow);
    }

    // The header menu, open.
    if (narrow) {
      await page.locator('header summary').click();
      await audit(t, page, 'header menu open', narrow);
    }

    // The promote page with its error summary, then its review, the pay page, the paid order.
    await page.goto(`/account/listings/${listingId}/promote`);
    await page.getByRole('button', { name: 'Review order' }).click();
    await page.locator('.error-summary').waitFor();
    await audit(t, page, 'promote with errors', narrow);
    await page.getByLabel('Add featured placement to the order').check();
    await page.getByLabel('Billing country').fill('IE');
    await page.getByRole('button', { name: 'Review order' }).click();
    await page.locator('[data-quote]').waitFor();
    await audit(t, page, 'promote review', narrow);
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/checkout\//);
    await audit(t, page, 'pay page', narrow);
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByLabel('Expiry').fill('12/34');
    await page.getByLabel('CVC').fill('123');
    await page.getByRole('button', { name: /^Pay USD/ }).click();
    await page.locator('.error-summary').waitFor();
    await audit(t, page, 'pay page, card declined', narrow);
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByRole('button', { name: /^Pay USD/ }).click();
    await page.waitForURL(/\/done$/);
    await audit(t, page, 'payment done', narrow);
    const order = (await db()('orders').where({ user_id: user.id }).first('number'))!.number as string;
    await eventually(
      'the order fulfilled',
      async () => (await db()('orders').where({ number: order }).first('status'))?.status === 'fulfilled',
    );
    for (const path of ['/account/orders', `/account/orders/${order}`, `/account/orders/${order}/invoice`]) {
      await page.goto(path);
      await audit(t, page, `${path} (paid)`, narrow);
    }

    // The keys page with a key in its table, and the page that confirms revoking it.
    const { view } = await createApiKey(db(), user.id, 'A key with a rather long name for the table', ['account:read']);
    for (const path of ['/account/keys', `/account/keys/${view.id}/revoke`]) {
      await page.goto(path);
      await audit(t, page, `${path} (with a key)`, narrow);
    }
  });
}

test.serial('390 px: public pages do not scroll sideways and keep their header on one line', async (t) => {
  const listingId = await insertLiveListing(db(), {
    name: 'A Rather Long Company Name For Small Screens',
    headline: 'Averyveryverylongwordwithoutanyspacesatalltoseewhetheritbreaksthepage and more words',
    url: `https://${randomBytes(4).toString('hex')}.example.org/`,
  });
  const { slug } = (await db()('listings').where({ id: listingId }).first('slug'))!;
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  for (const path of ['/', '/launches', '/updates', '/docs', `/listings/${slug}`, '/categories/ai', '/signup', '/signin']) {
    const res = await page.goto(path);
    t.is(res?.status(), 200, path);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > 391)
        .slice(0, 5)
        .map((el) => `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className)}` : ''}`),
    );
    t.true(width <= 390, `${path}: scrollWidth ${width} at 390 px (${wide.join(', ')})`);
    const header = await page.locator('header.site nav').boundingBox();
    t.true(header!.height < 70, `${path}: header ${header!.height} px high`);
  }
});
