import test from 'ava';
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { request, type TestEnv } from '../helpers/env.ts';
import { completeProfile, ownedListing } from '../helpers/founders.ts';
import { WebClient } from '../helpers/web.ts';

// Sharing that looks right everywhere: listing and founder pages carry a share control (the
// browser's share sheet where it has one, plain links to X, LinkedIn, Bluesky, Mastodon and email
// otherwise, no third-party script), the default share image names the site, a founder's link
// preview is a 1200×630 card, and /updates has link-preview tags.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let listing: { id: number; slug: string };
let founderId: number;

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  const owner = await env.user(['account:read', 'listings:write']);
  await completeProfile(env, owner.key);
  listing = await ownedListing(env, owner.userId, 'Share Co');
  founderId = owner.userId;
});
test.after.always(() => close?.());

const png = async (path: string) => {
  const res = await fetch(env.baseUrl + path);
  const body = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    meta: res.status === 200 ? await sharp(body).metadata() : null,
    body,
  };
};

test('the listing and founder pages offer plain share links for each network and email, carrying the page’s address', async (t) => {
  const web = new WebClient(env.baseUrl);
  for (const path of [`/listings/${listing.slug}`, `/founders/${founderId}`]) {
    const page = await web.get(path);
    const links = page.$('.share-links a');
    t.deepEqual(links.map((_, a) => page.$(a).contents().first().text()).get(), ['X', 'LinkedIn', 'Bluesky', 'Mastodon', 'Email'], path);
    const hrefs = links.map((_, a) => page.$(a).attr('href')).get();
    for (const href of hrefs) t.true(href.includes(encodeURIComponent(`${env.baseUrl}${path}`)), `${path}: ${href}`);
    t.true(page.$('button[data-share-url]').is('[hidden]'), 'the share-sheet button waits for the script');
    t.is(page.$('script[src]').length, 0, 'no third-party script');
  }
});

test('the default share image is a 1200×630 PNG that differs per site; a founder’s preview is their card', async (t) => {
  const main = await png('/share/default.png');
  t.like(main, { status: 200, type: 'image/png' });
  t.like(main.meta, { width: 1200, height: 630 });
  // The same request on the makers' site: another name drawn, so other bytes.
  const here = await request(env, 'GET', '/share/default.png');
  const makers = await request(env, 'GET', '/share/default.png', { headers: { host: 'makers.localhost' } });
  t.is(makers.status, 200);
  t.not(makers.text, here.text);

  const founder = await new WebClient(env.baseUrl).get(`/founders/${founderId}`);
  t.is(founder.$('meta[property="og:image"]').attr('content'), `${env.baseUrl}/media/founders/${founderId}/card.png`);
  const card = await png(`/media/founders/${founderId}/card.png`);
  t.like(card, { status: 200, type: 'image/png' });
  t.like(card.meta, { width: 1200, height: 630 });
  t.is((await png('/media/founders/999999/card.png')).status, 404);
  t.is((await png('/media/founders/abc/card.png')).status, 404);

  const updates = await new WebClient(env.baseUrl).get('/updates');
  t.is(updates.$('meta[property="og:image"]').attr('content'), `${env.baseUrl}/share/default.png`);
  t.is(updates.$('meta[property="og:title"]').length, 1);
});

test('where the browser has a share sheet, the button shows and opens it; the page passes axe at 390 px', async (t) => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, baseURL: env.baseUrl });
  await page.addInitScript(() => {
    (navigator as unknown as { share: (d: unknown) => Promise<void> }).share = async (data) => {
      (window as unknown as { shared: unknown }).shared = data;
    };
  });
  await page.goto(`/listings/${listing.slug}`);
  await page.getByRole('button', { name: 'Share this page…' }).click();
  t.deepEqual(await page.evaluate(() => (window as unknown as { shared: unknown }).shared), {
    title: await page.locator('h1').textContent(),
    url: `${env.baseUrl}/listings/${listing.slug}`,
  });
  t.deepEqual(await seriousViolations(page), []);
  t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
  await page.close();
});
