import test from 'ava';
import type { Browser } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';

// Both buttons on a phone-sized sign-in page, accessible. Nothing is clicked: the providers are the
// public defaults and are never reached.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {
    GITHUB_CLIENT_ID: 'id',
    GITHUB_CLIENT_SECRET: 'secret',
    GOOGLE_CLIENT_ID: 'id',
    GOOGLE_CLIENT_SECRET: 'secret',
  }));
});
test.after.always(() => close?.());

test('at 390 px the sign-in page shows Continue with GitHub and with Google, without serious axe findings', async (t) => {
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto('/signin?return_to=/account/listings');
  const github = page.getByRole('link', { name: 'Continue with GitHub' });
  const google = page.getByRole('link', { name: 'Continue with Google' });
  t.true(await github.isVisible());
  t.true(await google.isVisible());
  t.is(await google.getAttribute('href'), '/signin/google?return_to=%2Faccount%2Flistings');
  for (const link of [github, google]) {
    const box = (await link.boundingBox())!;
    t.true(box.x >= 0 && box.x + box.width <= 390, 'inside the screen');
    t.true(box.height >= 44, 'a finger-sized target');
  }
  t.is(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'no sideways scrolling');
  t.deepEqual(await seriousViolations(page), []);
  await context.close();
});
