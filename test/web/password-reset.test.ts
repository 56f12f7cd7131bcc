import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { request, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { connectApp } from '../helpers/oauth-client.ts';
import { linkIn, mailsTo, WebClient } from '../helpers/web.ts';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

const OLD = 'old password 1234';
const NEW = 'new password 5678';

async function resetMails(email: string) {
  return (await mailsTo(env.services.db, email)).filter((m) => m.subject === 'Reset your password');
}

test('reset by link in the browser: new password works, old one and other sessions do not, link is single use', async (t) => {
  const email = 'reset@example.com';
  await createVerifiedUser(env.services.db, email, OLD);
  const elsewhere = new WebClient(env.baseUrl);
  t.is((await elsewhere.signIn(email, OLD)).status, 303);
  t.is((await elsewhere.get('/account')).status, 200);

  const page = await browser.newPage({ baseURL: env.baseUrl });
  await page.goto('/signin');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();

  const [mail] = await resetMails(email);
  const link = linkIn(mail!, '/reset-password');
  await page.goto(link);
  await page.getByLabel('New password').fill(NEW);
  await page.getByRole('button', { name: 'Save the new password' }).click();
  await page.waitForURL(/\/account\?notice=password-changed$/);
  t.true(await page.getByText('Your password is changed').isVisible());
  await page.close();

  // The other session ended; the old password fails, the new one works.
  t.is((await elsewhere.get('/account')).status, 303);
  t.is((await new WebClient(env.baseUrl).signIn(email, OLD)).status, 422);
  t.is((await new WebClient(env.baseUrl).signIn(email, NEW)).status, 303);

  // Single use.
  const again = await new WebClient(env.baseUrl).get(new URL(link).pathname + new URL(link).search);
  t.is(again.status, 400);
  t.is(again.$('h1').text(), 'This link does not work');
});

test('forgot-password answers the same for unknown addresses and mails nothing', async (t) => {
  await createVerifiedUser(env.services.db, 'known@example.com', OLD);
  const answers = [];
  for (const email of ['known@example.com', 'unknown@example.com']) {
    const client = new WebClient(env.baseUrl);
    const _csrf = await client.csrfFrom('/forgot-password');
    const res = await client.post('/forgot-password', { _csrf, email });
    t.is(res.status, 200);
    answers.push(res.$('main').text().replace(email, 'EMAIL'));
  }
  t.is(answers[0], answers[1]);
  t.is((await resetMails('known@example.com')).length, 1);
  t.is((await mailsTo(env.services.db, 'unknown@example.com')).length, 0);
});

test('a short new password is refused and the link still works; an expired link does not', async (t) => {
  const email = 'expiry@example.com';
  await createVerifiedUser(env.services.db, email, OLD);
  const client = new WebClient(env.baseUrl);
  let _csrf = await client.csrfFrom('/forgot-password');
  await client.post('/forgot-password', { _csrf, email });
  const token = new URL(linkIn((await resetMails(email))[0]!, '/reset-password')).searchParams.get('token')!;

  _csrf = await client.csrfFrom(`/reset-password?token=${token}`);
  const short = await client.post('/reset-password', { _csrf, token, password: 'short' });
  t.is(short.status, 400);
  t.is(short.$('#f-password-error').text(), 'Use at least 10 characters.');
  t.is(short.$('input[name=token]').val(), token);
  const hostile = await client.post('/reset-password', { _csrf, token, 'password[a]': NEW });
  t.is(hostile.status, 400);
  t.is((await client.get(`/reset-password?token=${token}`)).status, 200, 'refusals do not use the link up');

  const user = await env.services.db('users').where({ email }).first('id');
  await env.services
    .db('account_tokens')
    .where({ user_id: user!.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  t.is((await client.get(`/reset-password?token=${token}`)).status, 400);
  const late = await client.post('/reset-password', { _csrf, token, password: NEW });
  t.is(late.status, 400);
  t.is((await new WebClient(env.baseUrl).signIn(email, OLD)).status, 303, 'the password did not change');
  t.is((await client.get('/reset-password?token=made-up')).status, 400);
  t.is((await client.get('/reset-password')).status, 400);
});

test('reset links are limited to three per 15 minutes per account', async (t) => {
  const email = 'flood@example.com';
  await createVerifiedUser(env.services.db, email, OLD);
  const client = new WebClient(env.baseUrl);
  for (let i = 0; i < 5; i++) {
    const _csrf = await client.csrfFrom('/forgot-password');
    t.is((await client.post('/forgot-password', { _csrf, email })).status, 200);
  }
  t.is((await resetMails(email)).length, 3);
});

test('attack: an app connected with a stolen password is cut off by the reset; API keys stay, and the reset says so', async (t) => {
  const email = 'connected@example.com';
  const user = await createVerifiedUser(env.services.db, email, OLD);
  const { key } = await createApiKey(env.services.db, user.id, 'my script', ['account:read']);
  // Whoever knew the old password connected an app to the account.
  const app = await connectApp(env, browser, { email, password: OLD });
  const mcpCall = (bearer: string) =>
    request(env, 'POST', '/mcp', {
      key: bearer,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_my_listings', arguments: {} } },
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    });
  t.is((await mcpCall(app.accessToken)).status, 200);

  const client = new WebClient(env.baseUrl);
  let _csrf = await client.csrfFrom('/forgot-password');
  await client.post('/forgot-password', { _csrf, email });
  const [mail] = await resetMails(email);
  t.regex(mail!.body_text, /API keys keep working/);
  t.true(mail!.body_text.includes(`${env.baseUrl}/account/keys`));
  const link = new URL(linkIn(mail!, '/reset-password'));
  const form = await client.get(link.pathname + link.search);
  t.is(form.$('main a[href="/account/keys"]').length, 1);
  t.regex(form.$('main').text(), /API keys\s+stay valid/);
  _csrf = form.$('input[name="_csrf"]').val() as string;
  const reset = await client.post('/reset-password', { _csrf, token: link.searchParams.get('token')!, password: NEW });
  t.is(reset.status, 303);

  // The app's refresh token is dead at once, its access token within the 2 s revocation view.
  const refresh = await request(env, 'POST', '/oauth/token', {
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: app.clientId, refresh_token: app.refreshToken }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.is(refresh.body.error, 'invalid_grant');
  t.true(
    await eventually('the app’s access token to be refused', async () => (await mcpCall(app.accessToken)).status === 401, {
      timeoutMs: 2_500,
      intervalMs: 100,
    }),
  );
  const grants = await env.services
    .db('oauth_payloads')
    .where({ model: 'Grant' })
    .whereRaw("payload->>'accountId' = ?", [String(user.id)]);
  t.is(grants.length, 0);
  // The API key is untouched.
  t.is((await request(env, 'GET', '/api/v1/me/listings', { key })).status, 200);
});
