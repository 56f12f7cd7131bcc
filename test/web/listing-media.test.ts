import test from 'ava';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { imageBytes, ownedListing } from '../helpers/founders.ts';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

const PASSWORD = 'listing media password';

async function signedIn(email: string, viewport = { width: 1200, height: 900 }) {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  const listing = await ownedListing(env, user.id, 'Image Co');
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  return { user, listing, page, context };
}

test('owners replace and remove the logo and preview image on /account/listings/{id}/images', async (t) => {
  const { listing, page, context } = await signedIn('media-owner@example.com');
  await page.goto(`/account/listings/${listing.id}/images`);
  t.true((await page.title()).startsWith('Logo and preview image of Image Co'));
  t.true(await page.getByText('No logo yet.').isVisible());
  // Without a preview image, the generated card is shown (what link previews use).
  t.true(await page.locator('img[alt^="Generated card"]').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1200));
  t.deepEqual(await seriousViolations(page), []);

  await page
    .getByLabel('Your logo')
    .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('not really a picture') });
  await page.getByRole('button', { name: 'Upload logo' }).click();
  await page.locator('#f-logo-error').waitFor();
  t.regex(await page.locator('#f-logo-error').innerText(), /not an image we accept/);
  t.true(await page.locator('.error-summary').first().isVisible());
  t.deepEqual(await seriousViolations(page), []);

  await page
    .getByLabel('Your logo')
    .setInputFiles({ name: 'logo.jpg', mimeType: 'image/jpeg', buffer: await imageBytes('jpeg', 300, 200) });
  await page.getByRole('button', { name: 'Upload logo' }).click();
  await page.getByText('Your logo is saved.').waitFor();
  const logoSrc = await page.locator('img[alt^="Logo of"]').getAttribute('src');
  t.regex(logoSrc!, /^\/media\/logos\/[0-9a-f]{32}\/256\.png$/);
  t.true(await page.locator('img[alt^="Logo of"]').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 256));

  await page
    .getByLabel('Your preview image')
    .setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: await imageBytes('png', 1400, 800) });
  await page.getByRole('button', { name: 'Upload preview image' }).click();
  await page.getByText('Your preview image is saved.').waitFor();
  const imageSrc = await page.locator('img[alt^="Preview image of"]').getAttribute('src');
  const served = await fetch(new URL(imageSrc!, env.baseUrl));
  t.like(await sharp(Buffer.from(await served.arrayBuffer())).metadata(), { width: 1200, height: 630, format: 'jpeg' });

  await page.getByRole('button', { name: 'Remove the logo' }).click();
  await page.getByText('Your logo is removed.').waitFor();
  t.true(await page.getByText('No logo yet.').isVisible());
  t.is((await env.services.db('listings').where({ id: listing.id }).first('logo_url'))!.logo_url, null);
  await context.close();
});

test('at 390 px the page does not scroll sideways; another owner’s listing is a 404 page', async (t) => {
  const { listing, page, context } = await signedIn('narrow-owner@example.com', { width: 390, height: 800 });
  await page.goto(`/account/listings/${listing.id}/images`);
  t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  t.deepEqual(await seriousViolations(page), []);
  const stranger = await createVerifiedUser(env.services.db, 'stranger-owner@example.com', PASSWORD);
  const theirs = await ownedListing(env, stranger.id, 'Their Co');
  const res = await page.goto(`/account/listings/${theirs.id}/images`);
  t.is(res!.status(), 404);
  await context.close();
});
