import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { html, serve, type TestSite } from '../helpers/site.ts';
import { linkIn, mailsTo } from '../helpers/web.ts';

/** A person in Chromium: claims a listing by meta tag (copy button, Check now) and one by the emailed link. */

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let site: TestSite;
let head = '';

test.before(async () => {
  site = await serve({ '/': (req, res) => html(`<html><head><title>Shop</title>${head}</head><body>Shop</body></html>`)(req, res) });
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { CLAIM_CHECK_SCHEDULE: '1m/1h' }));
  await env.startWorkers();
});
test.after.always(async () => {
  await close?.();
  await site?.close();
});

const PASSWORD = 'claims browser password';

test('claim a listing by meta tag, copy the tag, Check now; then verify another by the emailed link', async (t) => {
  const db = env.services.db;
  const email = 'claimant@example.com';
  const user = await createVerifiedUser(db, email, PASSWORD);
  const shopId = await insertLiveListing(db, { name: 'Loop Shop', url: site.url });
  const mailCoId = await insertLiveListing(db, { name: 'Mail Co', url: 'https://mailco-browser.com/' });
  const context = await browser.newContext({ baseURL: env.baseUrl, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|error/i.test(m.text())) problems.push(m.text());
  });
  await signInOnPage(page, email, PASSWORD);

  const { slug } = (await db('listings').where({ id: shopId }).first('slug'))!;
  await page.goto(`/listings/${slug}`);
  await page.getByRole('link', { name: 'Claim it' }).click();
  await page.getByLabel('Meta tag', { exact: false }).check();
  await page.getByRole('button', { name: 'Start the claim' }).click();
  await page.waitForURL(/\/account\/claims\?notice=started$/);
  const card = page.locator('[data-claim]').first();
  t.is(await card.getAttribute('data-status'), 'pending');

  await card.getByRole('button', { name: 'Copy Tag' }).click();
  await page.locator('#copy-status').getByText('Copied.').waitFor();
  const tag = await page.evaluate(() => navigator.clipboard.readText());
  const claim = await db('claims').where({ user_id: user.id }).first();
  t.is(tag, `<meta name="listing-directory-verification" content="${claim!.token}">`);

  head = tag;
  await card.getByRole('button', { name: /Check now/ }).click();
  await page.getByText('Verified: the listing is yours now.').waitFor();
  t.is(await page.locator(`[data-claim="${claim!.id}"]`).getAttribute('data-status'), 'verified');
  t.is(await page.locator(`[data-claim="${claim!.id}"] .last-check`).getAttribute('data-result'), 'found');
  t.is((await db('listings').where({ id: shopId }).first('owner_id'))!.owner_id, user.id);

  // By email: the form, the mail, the link opened in the same signed-in browser.
  const mailSlug = (await db('listings').where({ id: mailCoId }).first('slug'))!.slug;
  await page.goto(`/account/claims/new?slug=${mailSlug}`);
  await page.getByLabel('Email:', { exact: false }).check();
  await page.getByLabel('Email address (email only)').fill('founder@mailco-browser.com');
  await page.getByRole('button', { name: 'Start the claim' }).click();
  await page.waitForURL(/notice=started$/);
  t.true(await page.getByRole('button', { name: 'Send the link again' }).isVisible());
  const [mail] = await mailsTo(db, 'founder@mailco-browser.com');
  await page.goto(linkIn(mail!, '/claims/email-link'));
  await page.getByRole('heading', { name: 'Claim verified' }).waitFor();
  t.is((await db('listings').where({ id: mailCoId }).first('owner_id'))!.owner_id, user.id);
  await page.goto(linkIn(mail!, '/claims/email-link'));
  await page.getByRole('heading', { name: 'This link was used already' }).waitFor();
  t.deepEqual(problems, []);
  await context.close();
});
