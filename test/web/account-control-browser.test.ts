import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { fitsWidth, signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';

// /account's sessions, password and export sections, and /account/delete, in Chromium at a
// phone's width with axe: refusals in words beside the fields, then a deletion that signs out.

let env: TestEnv;
let browser: Browser;
let close: () => Promise<void>;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
});
test.after.always(() => close?.());

const db = () => env.services.db;
const PASSWORD = 'phone account password';

async function phone(t: { teardown(f: () => Promise<void>): void }): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 390, height: 800 }, baseURL: env.baseUrl });
  t.teardown(() => page.close());
  return page;
}

test('/account lists this session by device, refuses a wrong current password in words, fits 390 px and passes axe', async (t) => {
  const email = `phone-${Date.now()}@example.com`;
  await createVerifiedUser(db(), email, PASSWORD);
  const page = await phone(t);
  await signInOnPage(page, email, PASSWORD);
  const sessions = page.locator('section[aria-labelledby="sessions"]');
  t.regex((await sessions.textContent()) ?? '', /\(this session\)/);
  t.true(await fitsWidth(page), '/account fits');
  t.deepEqual(await seriousViolations(page), [], 'axe on /account');

  const password = page.locator('section[aria-labelledby="password"]');
  await password.getByLabel('Current password').fill('not the password at all');
  await password.getByLabel('New password').fill('another long password');
  await password.getByRole('button', { name: 'Change password' }).click();
  t.regex((await page.locator('section[aria-labelledby="password"]').textContent()) ?? '', /The current password is not right/);
  t.is(await page.getByLabel('Current password').getAttribute('aria-invalid'), 'true');
  t.deepEqual(await seriousViolations(page), [], 'axe with the refusal');

  await page.getByRole('button', { name: 'Export my data' }).click();
  t.regex((await page.locator('main').textContent()) ?? '', /preparing your archive/);
  t.is((await db()('account_exports').join('users', 'users.id', 'account_exports.user_id').where('users.email', email)).length, 1);
});

test('/account/delete asks for the password, refuses a wrong one in words, then deletes and signs out', async (t) => {
  const email = `leaving-${Date.now()}@example.com`;
  await createVerifiedUser(db(), email, PASSWORD);
  const page = await phone(t);
  await signInOnPage(page, email, PASSWORD);
  await page.getByRole('link', { name: 'Delete your account' }).click();
  t.is(await page.locator('h1').textContent(), 'Delete your account');
  t.true(await fitsWidth(page), '/account/delete fits');
  t.deepEqual(await seriousViolations(page), [], 'axe on /account/delete');

  await page.getByLabel('Your current password').fill('wrong password here');
  await page.getByLabel('Type “delete my account” to confirm').fill('delete my account');
  await page.getByRole('button', { name: 'Delete my account' }).click();
  t.regex((await page.locator('main').textContent()) ?? '', /The current password is not right/);
  t.deepEqual(await seriousViolations(page), [], 'axe with the refusal');
  t.is((await db()('users').where({ email }).first())!.deleted_at, null);

  await page.getByLabel('Your current password').fill(PASSWORD);
  await page.getByLabel('Type “delete my account” to confirm').fill('delete my account');
  await page.getByRole('button', { name: 'Delete my account' }).click();
  t.is(await page.locator('h1').textContent(), 'Your account is deleted');
  t.is((await db()('users').where({ email })).length, 0, 'the address is gone');
  await page.goto('/account');
  t.regex(page.url(), /\/signin/, 'signed out');
});
