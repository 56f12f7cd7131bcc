import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { voteCounts } from '../helpers/votes.ts';

/** Voting in Chromium: sign in, vote on /launches, unvote on the listing page. */

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { LEADERBOARD_CACHE_TTL_MS: '0' })));
test.after.always(() => close?.());

test('sign in from /launches, vote there, unvote on the listing page', async (t) => {
  const db = env.services.db;
  const quiet = await insertLiveListing(db, { name: 'Quiet Launch', url: 'https://quiet.example.com/' });
  const loud = await insertLiveListing(db, { name: 'Loud Launch', url: 'https://loud.example.com/', headline: 'Makes noise' });
  const password = 'launch day password';
  await createVerifiedUser(db, 'browser-voter@example.com', password);

  const context = await browser.newContext({ baseURL: env.baseUrl });
  const page = await context.newPage();
  const cspErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });

  await page.goto('/');
  await page.getByRole('link', { name: 'Launches' }).click();
  await page.getByRole('heading', { name: /^Launches of the week of \d{1,2} [A-Z][a-z]{2} \d{4}$/ }).waitFor();
  t.true(await page.getByText(/Anyone signed in with a confirmed email address has one vote per launch/).isVisible());
  // Visitors get a sign-in link that comes back here.
  await page.locator('#vote-loud-launch').getByRole('link', { name: 'Sign in to vote' }).click();
  await page.getByLabel('Email address').fill('browser-voter@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/launches\?week=\d{4}-\d{2}-\d{2}$/);

  await page.getByRole('button', { name: 'Vote for Loud Launch' }).click();
  await page.waitForURL(/notice=voted#vote-loud-launch$/);
  t.true(await page.getByText('Your vote is counted.').isVisible());
  const loudRow = page.locator('tr[data-listing="loud-launch"]');
  t.is(await loudRow.locator('[data-score]').textContent(), '1');
  t.is(await loudRow.locator('[data-rank]').textContent(), '1');
  t.true(await page.getByRole('button', { name: 'Unvote for Loud Launch' }).isVisible());
  t.true(await page.getByRole('button', { name: 'Vote for Quiet Launch' }).isVisible());
  t.deepEqual(await voteCounts(db, loud), { votes: 1, week_votes: 1, rows: 1 });

  await loudRow.getByRole('link', { name: 'Loud Launch', exact: true }).click();
  await page.waitForURL(/\/listings\/loud-launch$/);
  t.is(await page.locator('#vote-loud-launch [data-votes]').textContent(), '1');
  await page.getByRole('button', { name: 'Unvote for Loud Launch' }).click();
  await page.waitForURL(/\/listings\/loud-launch\?notice=unvoted#vote-loud-launch$/);
  t.true(await page.getByText('Your vote is taken back.').isVisible());
  t.is(await page.locator('#vote-loud-launch [data-votes]').textContent(), '0');
  await page.getByRole('button', { name: 'Vote for Loud Launch' }).waitFor();
  t.deepEqual(await voteCounts(db, loud), { votes: 0, week_votes: 0, rows: 0 });
  t.deepEqual(await voteCounts(db, quiet), { votes: 0, week_votes: 0, rows: 0 });
  t.deepEqual(cspErrors, []);
  await context.close();
});
