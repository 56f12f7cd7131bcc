import { randomBytes } from 'node:crypto';
import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { addDays } from '../../src/domain/orders/product-options.ts';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

/**
 * The promote page offers a placement's start from the weeks the listing is live, and the review
 * and the pay page say which weeks each line covers and how much of this week is left. The clock
 * stands on Saturday 18:22 UTC a week from now: a short week. SCREENSHOTS=dir keeps pictures.
 */

const THIS_WEEK = addWeeks(isoWeekStart(new Date()), 1);
const SATURDAY = `${addDays(THIS_WEEK, 5)}T18:22:00Z`;
const clock = new ManualClock(SATURDAY);
const PASSWORD = 'promote weeks password';
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {}, { clock }));
});
test.after.always(() => close?.());

const db = () => env.services.db;

async function founderWith(status: 'live' | 'scheduled', launchWeek: string) {
  const email = `weeks-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const listingId = await insertLiveListing(db(), {
    name: `Weeks Co ${randomBytes(2).toString('hex')}`,
    ownerId: user.id,
    url: `https://${randomBytes(4).toString('hex')}.example.org/`,
  });
  await db()('listings').where({ id: listingId }).update({ status, launch_week: launchWeek });
  return { email, listingId };
}

/** `21 Dec` of a Monday. */
const dayMonth = (monday: string) => {
  const d = new Date(`${monday}T00:00:00Z`);
  return `${d.getUTCDate()} ${d.toLocaleString('en', { month: 'short', timeZone: 'UTC' })}`;
};

for (const [label, viewport] of [
  ['1280 px', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(`${label}: a scheduled listing is featured from its launch week, and every step says which weeks`, async (t) => {
    const launch = addWeeks(THIS_WEEK, 3);
    const { email, listingId } = await founderWith('scheduled', launch);
    const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInOnPage(page, email, PASSWORD);
    await page.goto(`/account/listings/${listingId}/promote`);

    const start = page.getByLabel('First week');
    t.is(await start.inputValue(), launch, 'the launch week is chosen');
    const offered = await page.locator('#f-featured-start_week option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    t.is(offered[0], launch, 'no week before the launch week is offered');
    t.is(offered.length, 13);
    t.deepEqual(await seriousViolations(page), []);
    // Categories and sections by their display names, never a title-cased slug.
    const choices = await page.locator('[data-product=categories] label.check').allInnerTexts();
    t.true(choices.some((c) => c.trim() === 'AI') && choices.some((c) => c.trim() === 'HR'), choices.join('|'));
    t.true((await page.locator('[data-product=unlock_section] select').innerText()).includes('FAQs'));

    await page.getByLabel('Add featured placement to the order').check();
    await page.getByLabel('Number of weeks').fill('2');
    await page.getByLabel('Billing country').fill('US');
    await page.getByRole('button', { name: 'Review order' }).click();
    const review = page.locator('[data-quote]');
    await review.waitFor();
    const covers = `weeks of ${dayMonth(launch)} and ${dayMonth(addWeeks(launch, 1))}`;
    t.true((await review.innerText()).includes(covers), await review.innerText());
    t.regex(await review.locator('[data-week-left]').innerText(), /^This week ends in 29 hours/);
    t.notRegex(await review.locator('[data-week-left]').innerText(), /only what is left/, 'nothing starts in the short week');
    t.false(/\d{4}-W\d{2}/.test(await page.locator('main').innerText()));
    if (process.env.SCREENSHOTS)
      await page.screenshot({ path: `${process.env.SCREENSHOTS}/promote-review-${viewport.width}.png`, fullPage: true });
    if (viewport.width === 390) t.true((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);

    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(/\/checkout\/[A-Za-z0-9_-]{43}$/);
    t.true((await page.locator('main').innerText()).includes(covers));
    t.regex(await page.locator('[data-week-left]').innerText(), /^This week ends in 29 hours/);
    t.deepEqual(await seriousViolations(page), []);
    if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/pay-${viewport.width}.png`, fullPage: true });
    const line = await db()('order_lines').where({ listing_id: listingId }).first('options');
    t.is(line!.options.start_week, launch);
  });
}

test.serial('on a short week a live listing starts next week unless the founder picks this week, and is told so', async (t) => {
  const { email, listingId } = await founderWith('live', addWeeks(THIS_WEEK, -2));
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 1280, height: 800 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  await page.goto(`/account/listings/${listingId}/promote`);
  t.regex(
    await page.locator('p[data-week-left]').innerText(),
    /^This week ends in 29 hours .* Placements start next week unless you choose this week\.$/,
  );
  t.is(await page.getByLabel('First week').inputValue(), addWeeks(THIS_WEEK, 1));
  t.regex(await page.locator(`#f-featured-start_week option[value="${THIS_WEEK}"]`).innerText(), /ends in 29 hours$/);
  t.regex(await page.locator('#f-launch-week option[value=""]').innerText(), /this week, which ends in 29 hours/);

  // This week, chosen on purpose: the review warns before anything is charged.
  await page.getByLabel('Add featured placement to the order').check();
  await page.getByLabel('First week').selectOption(THIS_WEEK);
  await page.getByLabel('Billing country').fill('US');
  await page.getByRole('button', { name: 'Review order' }).click();
  await page.locator('[data-quote]').waitFor();
  t.regex(await page.locator('[data-quote] [data-week-left]').innerText(), /only what is left of it, at the full week’s price/);
  t.true((await page.locator('[data-quote]').innerText()).includes(`week of ${dayMonth(THIS_WEEK)}`));
});
