import fs from 'node:fs/promises';
import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { checkout, promo } from '../helpers/orders.ts';

// In Chromium at 390 px and 1280 px: table headers never break inside a word (the order page,
// the pay page, /launches), the signed-in header is one line at 1280 px with Your listings first,
// and the pages these words changed have no serious axe findings. SCREENSHOTS=dir keeps pictures.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
const PASSWORD = 'founder words in a browser';
const EMAIL = 'words-browser@example.com';
let listingId: number;
let slug: string;
let orderNumber: string;
let checkoutPath: string;
let scheduledId: number;

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  const db = env.services.db;
  const user = await createVerifiedUser(db, EMAIL, PASSWORD);
  // Long names and headlines squeeze the other columns: what broke their headers inside a word.
  listingId = await insertLiveListing(db, {
    name: 'Tabled Words for Remarkably Long Product Names Incorporated',
    ownerId: user.id,
    headline: 'Forms for teams who write remarkably long headlines about everything they ship every single week',
    url: 'https://tabled-words.example.com/',
    votes: 3,
  });
  slug = (await db('listings').where({ id: listingId }).first('slug'))!.slug;
  await db('listings').where({ id: listingId }).update({ week_votes: 3 });
  await insertLiveListing(db, { name: 'Second Place Ranked', url: 'https://second-place.example.com/' });
  const { key } = await createApiKey(db, user.id, 'test', ['account:read', 'orders:write']);
  const code = await promo(db, { percent: 20 });
  const order = (
    await checkout(env, key, {
      items: [{ product: 'featured', listing_id: listingId, options: { weeks: 4 } }],
      billing_country: 'IE',
      promo_code: code,
    })
  ).body as { number: string; checkout_url: string };
  orderNumber = order.number;
  checkoutPath = new URL(order.checkout_url).pathname;
  scheduledId = await insertDraftListing(db, { name: 'Counted Later', ownerId: user.id, url: 'https://counted-later.example.com/' });
  await db('listings')
    .where({ id: scheduledId })
    .update({ status: 'scheduled', plan: 'free', launch_week: addWeeks(isoWeekStart(new Date()), 2) });
});
test.after.always(() => close?.());

/** Column headers whose text takes more lines than it has words (a word broken inside), as "text: lines". */
const brokenHeaders = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('th')]
      // Headers a narrow table hides visually (it stacks into labelled rows) are read, not seen.
      .filter((th) => th.getClientRects().length > 0 && getComputedStyle(th.closest('thead') ?? th).clipPath === 'none')
      .flatMap((th) => {
        const text = (th.textContent ?? '').trim();
        const range = document.createRange();
        range.selectNodeContents(th);
        // One rect per line box per text node: its distinct tops are the lines the text takes.
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        const words = text.split(/\s+/).filter(Boolean).length;
        // Each word on its own line at most: more lines than words means a word was broken.
        const wordsFit = [...text.split(/\s+/)].every((w) => {
          const probe = document.createElement('span');
          probe.textContent = w;
          probe.style.whiteSpace = 'nowrap';
          th.appendChild(probe);
          const fits = probe.offsetWidth <= th.clientWidth;
          probe.remove();
          return fits;
        });
        return tops.size > words || !wordsFit ? [`${text}: ${tops.size} lines`] : [];
      }),
  );

const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

for (const [label, viewport] of [
  ['390 px', { width: 390, height: 844 }],
  ['1280 px', { width: 1280, height: 900 }],
] as const) {
  test.serial(`${label}: table headers keep their words whole; the header and the changed pages read well`, async (t) => {
    const context = await browser.newContext({ viewport, baseURL: env.baseUrl });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInOnPage(page, EMAIL, PASSWORD);
    const shots = process.env.SCREENSHOTS;
    const pages = [
      `/account/orders/${orderNumber}`,
      checkoutPath,
      '/launches',
      '/',
      `/listings/${slug}`,
      `/account/listings/${scheduledId}/stats`,
      `/account/listings/${scheduledId}/launch`,
    ];
    for (const path of pages) {
      await page.goto(path);
      t.deepEqual(await brokenHeaders(page), [], `${path}: no header broken inside a word`);
      t.false(await scrollsSideways(page), `${path}: no sideways scroll`);
      t.deepEqual(await seriousViolations(page), [], `${path}: axe`);
      t.notRegex(await page.locator('main').innerText(), /\d{4}-W\d{2}/, path);
      if (shots) {
        await fs.mkdir(shots, { recursive: true });
        await page.screenshot({ path: `${shots}/${viewport.width}-${path.replace(/\W+/g, '_')}.png`, fullPage: true });
      }
    }
    // The order page and /launches have column headers at 1280 px, and those are what broke before.
    if (viewport.width === 1280) {
      await page.goto(`/account/orders/${orderNumber}`);
      t.true(await page.locator('thead th', { hasText: 'Discount' }).isVisible());
      await page.goto('/launches');
      t.true(await page.locator('table.ranking thead th', { hasText: 'Rank' }).isVisible());

      // Signed in, the header starts with Your listings, all on one line.
      const nav = page.getByRole('navigation', { name: 'Main' });
      const links = nav.locator('ul > li');
      t.is((await links.first().innerText()).trim(), 'Your listings');
      const tops = await links.evaluateAll((items) => new Set(items.map((li) => Math.round(li.getBoundingClientRect().top))).size);
      t.is(tops, 1, 'every header link on one line');
      const brand = await nav.locator('.brand').boundingBox();
      const first = await links.first().boundingBox();
      t.true(Math.abs(brand!.y + brand!.height / 2 - (first!.y + first!.height / 2)) < 8, 'the links beside the brand');
    } else {
      await page.locator('header summary').click();
      t.is((await page.getByRole('navigation', { name: 'Main' }).locator('ul > li').first().innerText()).trim(), 'Your listings');
    }
  });
}
