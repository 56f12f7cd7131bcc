import test from 'ava';
import type { Browser } from 'playwright-core';
import { api, type TestEnv } from '../helpers/env.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { mailsTo } from '../helpers/web.ts';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

test('sign up, verify by mail, sign in, create a key, use it, revoke it, sign out', async (t) => {
  const context = await browser.newContext({ baseURL: env.baseUrl });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: env.baseUrl });
  const page = await context.newPage();
  const cspErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  const email = 'founder@example.com';
  const password = 'correct horse battery';

  await page.goto('/signup');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();

  // Not verified yet: the right password does not sign in.
  const [mail] = await mailsTo(env.services.db, email);
  t.truthy(mail);
  t.is(mail!.subject, 'Confirm your email address');
  const stored = await env.services.db('users').where({ email }).first();
  t.regex(stored!.password_hash!, /^\$argon2id\$/);
  t.is(stored!.email_verified_at, null);

  // The development mailbox lists the mail; its link is clickable.
  await page.goto('/dev/mailbox');
  await page.getByRole('link', { name: 'Confirm your email address' }).click();
  await page.getByRole('link', { name: /\/verify-email\?token=/ }).click();
  await page.waitForURL(/\/signin\?notice=verified$/);
  t.true(await page.getByText('Your email address is confirmed').isVisible());

  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/account$/);
  t.true(await page.getByText(email).isVisible());

  await page.getByRole('link', { name: 'Manage API keys' }).click();
  await page.getByLabel('Name', { exact: true }).fill('CI deploy');
  await page.getByRole('checkbox', { name: /account:read/ }).check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('#new-key').textContent())!.trim();
  t.regex(key, /^ld_[A-Za-z0-9_-]{40,}$/);

  // The copy button exists only because our nonce'd script ran, and it copies the key.
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied.').waitFor();
  t.is(await page.evaluate(() => navigator.clipboard.readText()), key);

  const mine = await api(env, 'GET', '/me/listings', { key });
  t.is(mine.status, 200);
  t.deepEqual(mine.body.items, []);
  // Only the scope that was ticked.
  const draft = await api(env, 'POST', '/drafts', { key, body: { url: 'https://example.com' } });
  t.is(draft.status, 403);
  t.is(draft.body.code, 'insufficient_scope');

  // Shown once: a reload lists the key by name and prefix, never the key itself.
  await page.goto('/account/keys');
  const row = page.locator('tr', { hasText: 'CI deploy' });
  t.true(await row.getByText('account:read').isVisible());
  t.false((await page.content()).includes(key));
  t.notRegex((await row.locator('td').nth(3).textContent())!, /never/);

  await row.getByRole('link', { name: 'Revoke CI deploy' }).click();
  await page.getByRole('heading', { name: 'Revoke the key “CI deploy”?' }).waitFor();
  t.is((await api(env, 'GET', '/me/listings', { key })).status, 200, 'asking changes nothing');
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByText('The key is revoked').waitFor();
  t.is(await page.locator('tr', { hasText: 'CI deploy' }).count(), 0);
  const revoked = await api(env, 'GET', '/me/listings', { key });
  t.is(revoked.status, 401);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/signin\?notice=signed-out$/);
  await page.goto('/account/keys');
  t.regex(page.url(), /\/signin\?return_to=%2Faccount%2Fkeys$/);
  t.deepEqual(cspErrors, []);
  await context.close();
});
