import test from 'ava';
import { admin, adminInProcess } from '../helpers/admin.ts';
import type { Browser } from 'playwright-core';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import { type TestEnv } from '../helpers/env.ts';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

test('users:create --password makes a verified account that signs in on the web at once', async (t) => {
  const created = await admin(env, 'users:create', '--email', 'operator@example.com', '--password', 'operator password 1');
  t.is(created.code, 0, created.stderr);
  t.regex(created.stdout.trim(), /^created user \d+ <operator@example\.com>$/);
  const row = await env.services.db('users').where({ email: 'operator@example.com' }).first();
  t.regex(row!.password_hash!, /^\$argon2id\$/);
  t.truthy(row!.email_verified_at);
  t.is((await env.services.db('mail_outbox').where({ to_address: 'operator@example.com' })).length, 0);

  const page = await browser.newPage({ baseURL: env.baseUrl });
  await signInOnPage(page, 'operator@example.com', 'operator password 1');
  t.true(await page.getByText('operator@example.com').isVisible());
  await page.close();
});

test('users:create with a bad password exits 1 and creates nothing; without one, no web sign-in', async (t) => {
  for (const password of ['short', '']) {
    const res = await adminInProcess(env, 'users:create', '--email', 'weak@example.com', '--password', password);
    t.is(res.code, 1, password);
    t.regex(res.stderr, /--password: /);
    t.false(res.stderr.includes('    at '));
  }
  t.is(await env.services.db('users').where({ email: 'weak@example.com' }).first(), undefined);

  const plain = await adminInProcess(env, 'users:create', '--email', 'api-only@example.com');
  t.is(plain.code, 0);
  const row = await env.services.db('users').where({ email: 'api-only@example.com' }).first();
  t.is(row!.password_hash, null);
  t.is(row!.email_verified_at, null);
});
