import test from 'ava';
import type { Browser } from 'playwright-core';
import { newsletterIssuePath } from '../../src/domain/newsletter/issue.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { closedWeek, insertFeatured, siteNamed } from '../helpers/newsletter.ts';
import { mailsTo } from '../helpers/web.ts';

// The subscribe form and an issue's web version in Chromium at a phone's width, with axe.

let env: TestEnv;
let browser: Browser;
let close: () => Promise<void>;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
});
test.after.always(() => close?.());

const db = () => env.services.db;

test('the subscribe form fits 390 px, passes axe, and subscribing says to check the inbox', async (t) => {
  const page = await browser.newPage({ viewport: { width: 390, height: 800 }, baseURL: env.baseUrl });
  t.teardown(() => page.close());
  for (const path of ['/', '/launches', '/newsletter']) {
    await page.goto(path);
    t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${path} fits`);
    t.deepEqual(await seriousViolations(page), [], `axe on ${path}`);
  }
  await page.goto('/');
  await page.getByLabel('Your email address').fill('nope@');
  // The browser's own check would stop a malformed address; the server's answer is what is tested.
  await page.locator('form[action="/newsletter"]').evaluate((f) => ((f as HTMLFormElement).noValidate = true));
  await page.getByRole('button', { name: 'Subscribe' }).click();
  t.is(await page.locator('h1').textContent(), 'Weekly newsletter');
  t.is(await page.getByLabel('Your email address').getAttribute('aria-invalid'), 'true');
  t.deepEqual(await seriousViolations(page), [], 'axe on the form with its error');
  await page.getByLabel('Your email address').fill('phone.reader@example.com');
  await page.getByRole('button', { name: 'Subscribe' }).click();
  t.is(await page.locator('h1').textContent(), 'Check your inbox');
  t.is((await mailsTo(db(), 'phone.reader@example.com')).length, 1);
});

test('the web version of an issue fits 390 px and passes axe; featured launches are marked', async (t) => {
  const { monday, listingIds, nextName } = await closedWeek(db(), 2, ['Web Walrus', 'Web Wombat', 'Web Weasel']);
  const site = await siteNamed(db());
  await db()('newsletter_issues').insert({ site_id: site.id, week: monday });
  await insertFeatured(db(), listingIds[2]!, monday);
  const page = await browser.newPage({ viewport: { width: 390, height: 800 }, baseURL: env.baseUrl });
  t.teardown(() => page.close());
  const res = await page.goto(newsletterIssuePath(monday));
  t.is(res?.status(), 200);
  t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'fits');
  t.deepEqual(await seriousViolations(page), [], 'axe on the web version');
  const text = (await page.locator('main').textContent()) ?? '';
  t.regex(text, /#1 Web Walrus/);
  t.regex(text, /Web Weasel Featured/);
  t.true(text.includes(nextName), 'next week’s launches');
  t.is((await page.locator('a[href^="/launches/"]').count()) > 0, true, 'a link to the archive page');
  t.is((await page.goto('/newsletter/2026/60'))?.status(), 404);
  t.is((await page.goto(newsletterIssuePath('2099-01-05')))?.status(), 404);
});

test('on /account a signed-in person subscribes with one click and unsubscribes again', async (t) => {
  const email = `account-reader-${Date.now()}@example.com`;
  await createVerifiedUser(db(), email, 'newsletter account password');
  const page = await browser.newPage({ viewport: { width: 390, height: 800 }, baseURL: env.baseUrl });
  t.teardown(() => page.close());
  await signInOnPage(page, email, 'newsletter account password');
  await page.goto('/account');
  const section = page.locator('section[aria-labelledby="newsletter"]');
  await section.getByRole('button', { name: 'Subscribe' }).click();
  t.regex((await section.textContent()) ?? '', new RegExp(`You get it at ${email.replace(/\./g, '\\.')}`));
  t.deepEqual(await seriousViolations(page), [], 'axe on /account');
  t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), '/account fits');
  const row = await db()('newsletter_subscribers').where({ email }).first();
  t.not(row!.confirmed_at, null, 'the confirmed account email counts as confirmed');
  t.is((await mailsTo(db(), email)).length, 0, 'no confirmation mail');
  await section.getByRole('button', { name: 'Unsubscribe' }).click();
  t.regex((await section.textContent()) ?? '', /You do not get it/);
});
