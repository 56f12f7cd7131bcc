import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { addWeeks, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { completeProfile } from '../helpers/founders.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { featureListing } from '../helpers/orders.ts';
import { seriousViolations } from '../helpers/axe.ts';

/**
 * The browse pages in Chromium, at 390 px and at desktop width: nothing scrolls sideways, no
 * word breaks, axe-core finds nothing serious or critical; a vote from the front page counts.
 */

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let listingSlug: string;
let founderId: number;
const password = 'browse the week password';

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { BROWSE_CACHE_TTL_MS: '0' }));
  const db = env.services.db;
  const owner = await env.user();
  await completeProfile(env, owner.key);
  const long = 'Incomprehensibilities-of-very-long-product-names-that-wrap';
  const ids = [
    await insertLiveListing(db, { name: 'Front Runner', headline: 'The fastest forms on the web', url: 'https://runner.example.com/' }),
    await insertLiveListing(db, { name: long, headline: `${long} ${long}`, url: 'https://long.example.com/' }),
    await insertLiveListing(db, {
      name: 'Owned Tool',
      headline: 'Made by Ada',
      summary: 'A tool with a summary.\n\nAnd a second paragraph.',
      url: 'https://owned.example.com/',
      ownerId: owner.userId,
    }),
  ];
  await db('listings')
    .whereIn('id', ids)
    .update({ categories: ['productivity', 'developer-tools'] });
  await db('listings')
    .where({ id: ids[2] })
    .update({
      facts: JSON.stringify({ founded_year: 2020, location: 'Lisbon', legal_name: 'Owned Tool Limited Liability Company of Lisbon' }),
      socials: JSON.stringify({ github: 'https://github.com/owned-tool', linkedin: 'https://www.linkedin.com/company/owned-tool' }),
      faqs: JSON.stringify([{ question: 'Is it free?', answer: 'Yes, for small teams.' }]),
    });
  await featureListing(db, ids[0]!);
  const coming = await insertDraftListing(db, { name: 'Next Week Thing', headline: 'Coming soon', url: 'https://next.example.com/' });
  await db('listings')
    .where({ id: coming })
    .update({ status: 'scheduled', launch_week: addWeeks(isoWeekStart(new Date()), 1) });
  listingSlug = (await db('listings').where({ id: ids[2] }).first('slug'))!.slug;
  founderId = owner.userId;
  await createVerifiedUser(db, 'browser@example.com', password);
});
test.after.always(() => close?.());

const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

for (const [label, viewport] of [
  ['390 px', { width: 390, height: 844 }],
  ['desktop', { width: 1280, height: 900 }],
] as const) {
  test(`front page, categories, a category, a listing, launches, a founder and updates at ${label}: no sideways scroll, axe clean`, async (t) => {
    const context = await browser.newContext({ viewport, baseURL: env.baseUrl });
    const page = await context.newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    for (const path of [
      '/',
      '/categories',
      '/categories/productivity',
      `/listings/${listingSlug}`,
      '/launches',
      `/founders/${founderId}`,
      '/updates',
    ]) {
      const response = await page.goto(path);
      t.is(response?.status(), 200, path);
      t.false(await scrollsSideways(page), `${path} scrolls sideways at ${label}`);
      t.deepEqual(await seriousViolations(page), [], path);
    }
    t.deepEqual(cspErrors, []);
    await context.close();
  });
}

test('a signed-in person votes from the front page and comes back to it', async (t) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: env.baseUrl });
  const page = await context.newPage();
  await page.goto('/');
  await page.locator('#vote-front-runner').getByRole('link', { name: 'Sign in to vote' }).click();
  await page.getByLabel('Email address').fill('browser@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/$/);
  await page.getByRole('button', { name: 'Vote for Front Runner' }).click();
  await page.waitForURL(/\/\?notice=voted#vote-front-runner$/);
  t.true(await page.getByText('Your vote is counted.').isVisible());
  t.is(await page.locator('#vote-front-runner [data-votes]').textContent(), '1');
  t.is(await page.locator('ol.ranking-list li[data-listing="front-runner"] .tag').textContent(), 'Featured');
  t.true(await page.getByRole('button', { name: 'Unvote for Front Runner' }).isVisible());
  t.false(await scrollsSideways(page));
  t.deepEqual(await seriousViolations(page), []);
  await context.close();
});
