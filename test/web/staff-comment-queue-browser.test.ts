import test from 'ava';
import type { Browser } from 'playwright-core';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import { seasonedAccount } from '../helpers/comments.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { consolePerson, STAFF_PASSWORD, verifyFactor } from '../helpers/staff-cast.ts';

// The discussion's queue on /staff/moderation in Chromium at 390 px without JavaScript, axe on
// each state: a moderator approves a held comment, hides a
// reported one with a reason (the listing page then shows it in its place) and restores it.

const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {}, { clock })));
test.after.always(() => close?.());

test('390 px: a moderator approves, hides with a reason and restores from the queue', async (t) => {
  const db = env.services.db;
  const maker = await env.user();
  await seasonedAccount(db, maker.userId);
  const listingId = await insertLiveListing(db, { name: 'Queue Phone', ownerId: maker.userId, url: 'https://queue-phone.example.com/' });
  const newcomer = await env.user();
  await db('users').where({ id: newcomer.userId }).update({ email_verified_at: db.fn.now() });
  const visitor = await env.user();
  await seasonedAccount(db, visitor.userId);
  const post = async (key: string, body: string) =>
    (await api(env, 'POST', `/listings/${listingId}/comments`, { key, body: { body } })).body.id as number;
  const held = await post(newcomer.key, 'Hello, is there a team plan?');
  const spam = await post(visitor.key, 'Cheap followers at https://spam.example.net/');
  t.is((await api(env, 'POST', `/comments/${spam}/reports`, { key: maker.key, body: { reason: 'spam', note: 'An advert' } })).status, 201);

  const moderator = await consolePerson(env, clock, ['moderator']);
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await signInOnPage(page, moderator.email, STAFF_PASSWORD);
  await verifyFactor(env, clock, moderator.userId);
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const axe = async (where: string) => {
    const twin = await browser.newContext({
      baseURL: env.baseUrl,
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const copy = await twin.newPage();
      await copy.goto(page.url());
      t.deepEqual(await seriousViolations(copy), [], `axe: ${where}`);
    } finally {
      await twin.close();
    }
  };

  await page.goto('/staff/moderation#reports');
  const heldItem = page.locator(`[data-queued-comment="${held}"]`);
  const spamItem = page.locator(`[data-queued-comment="${spam}"]`);
  t.regex(await heldItem.innerText(), /Waiting for review[\s\S]*Hello, is there a team plan\?/);
  t.regex(await spamItem.innerText(), /1 report: 1 for spam\.[\s\S]*An advert/);
  t.true(await fits(), 'the queue fits 390 px');
  await axe('the queue');

  await heldItem.getByRole('button', { name: `Approve comment ${held}` }).click();
  await page.waitForURL(new RegExp(`approved=${held}`));
  t.true(await page.getByText(`Comment ${held} is approved`).isVisible());
  t.is(await page.locator(`[data-queued-comment="${held}"]`).count(), 0);

  await spamItem.getByLabel(/Reason shown in its place/).fill('spam');
  await spamItem.getByRole('button', { name: `Hide comment ${spam}` }).click();
  await page.waitForURL(new RegExp(`hidden=${spam}`));
  const hiddenItem = page.locator(`[data-queued-comment="${spam}"]`);
  t.regex(await hiddenItem.innerText(), /removed by the site team: spam/);
  t.true(await fits());
  await axe('after hiding');
  t.is((await db('listings').where({ id: listingId }).first('comment_count'))!.comment_count, 1);

  const reader = await browser.newPage({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  await reader.goto('/listings/queue-phone');
  t.true(await reader.locator('#discussion').getByText('Removed by the site team: spam.').isVisible());
  await reader.close();

  await hiddenItem.getByRole('button', { name: `Restore comment ${spam}` }).click();
  await page.waitForURL(new RegExp(`restored_comment=${spam}`));
  t.is((await db('listings').where({ id: listingId }).first('comment_count'))!.comment_count, 2);
  t.true(await page.getByText('Nothing waits for a decision.').isVisible());
  await context.close();
});
