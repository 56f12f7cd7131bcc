import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { request, type TestEnv } from '../helpers/env.ts';
import { insertFollowers } from '../helpers/followers.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// The owner's launch numbers in Chromium: the week's charts (SVG with names and numbers on the
// bars), the table beside them, the CSV link; at 390 px without sideways scrolling; axe-core clean.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
});
test.after.always(async () => {
  await close?.();
});

const db = () => env.services.db;
const PASSWORD = 'launch numbers password';
const PERSON = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';
const scrollsSideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

test('the stats page in a browser at 390 px: charts that read without colour, a table, the CSV, no axe violations', async (t) => {
  const user = await createVerifiedUser(db(), 'numbers@example.com', PASSWORD);
  const id = await insertLiveListing(db(), { name: 'Browser Charted Analytics Incorporated', ownerId: user.id });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  await insertFollowers(db(), id, 3);

  // Headless Chromium names itself HeadlessChrome, which isbot rightly takes for a bot: this is a person's browser.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: env.baseUrl, userAgent: PERSON });
  t.teardown(() => context.close());
  const page = await context.newPage();
  // A person's visit from another site, then out through the website link.
  await page.goto('/');
  await page.goto(`/listings/${slug}`, { referer: 'https://www.example-news.com/launches' });
  const website = page.getByRole('link', { name: /browserchartedanalyticsincorporated\.example\.com/ });
  t.is(await website.getAttribute('href'), `/go/${slug}`);
  const out = await request(env, 'GET', `/go/${slug}`, { headers: { 'user-agent': PERSON } });
  t.is(out.status, 302);
  await env.services.pageCounters.flush();

  await page.goto('/signin');
  await page.getByLabel('Email address').fill('numbers@example.com');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
  await page.goto(`/account/listings/${id}`);
  await page.getByRole('link', { name: 'See its launch numbers' }).click();
  await page.waitForURL(new RegExp(`/account/listings/${id}/stats$`));

  t.regex(
    await page.locator('p.lead').innerText(),
    /Browser Charted Analytics Incorporated had 1 page view from people, 1 click through to its website, 0 votes and 3 new followers\./,
  );
  // Each chart is an image named by its heading and described in words; every bar carries its number.
  for (const name of ['Page views', 'Clicks to your website', 'Votes', 'New followers']) {
    const chart = page.getByRole('img', { name });
    t.true(await chart.isVisible(), name);
    t.is(await chart.locator('rect').count(), 7, name);
    t.is(await chart.locator('text').count(), 21, `${name}: a number and a day (two lines) per bar`);
    t.truthy(await chart.locator('desc').textContent());
  }
  t.regex(
    await page.getByRole('figure', { name: 'New followers' }).locator('figcaption').innerText(),
    /^3 new followers in all; the most on /,
  );
  t.is(await page.getByRole('table').locator('tbody tr').count(), 7);
  t.is(await page.locator('[data-referrer]').innerText(), 'www.example-news.com');
  t.false(await scrollsSideways(page), 'no sideways scrolling at 390 px');

  t.deepEqual(await seriousViolations(page), []);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: /Download the launch week by hour/ }).click(),
  ]);
  const csv = await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8');
  const lines = csv.split('\r\n');
  t.is(lines[0], 'hour_utc,views,clicks,votes,followers');
  t.is(lines.length, 1 + 7 * 24);
  t.is(
    lines.slice(1).reduce((sum, line) => sum + Number(line.split(',')[4]), 0),
    3,
  );
});
