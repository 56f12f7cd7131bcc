import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { markSessionFactor } from '../../src/domain/staff/second-factor.ts';
import { grant } from '../../src/domain/staff/roles.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

const PASSWORD = 'a good long password';

async function signedIn(email: string) {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  return { user, client, _csrf: await client.csrfFrom('/account/keys') };
}
const keysOf = (userId: number) => env.services.db('api_keys').where({ user_id: userId });

test('creating a key redirects after the POST and shows the key once; a reload creates and shows nothing', async (t) => {
  const { user, client, _csrf } = await signedIn('reveal@example.com');
  const made = await client.post('/account/keys', { _csrf, name: 'CI', scopes: 'account:read' });
  t.is(made.status, 303);
  t.is(made.location, '/account/keys');
  t.false(made.text.includes('ld_'), 'the POST answer carries no key');
  const shown = await client.get('/account/keys');
  const key = shown.$('#new-key').text();
  t.regex(key, /^ld_[A-Za-z0-9_-]{40,}$/);
  t.is((await api(env, 'GET', '/me/listings', { key })).status, 200);
  const reloaded = await client.get('/account/keys');
  t.is(reloaded.$('#new-key').length, 0);
  t.false(reloaded.text.includes(key));
  t.is((await keysOf(user.id)).length, 1);
});

test('the reveal shows only a live key of the signed-in person', async (t) => {
  const owner = await signedIn('reveal-owner@example.com');
  const { key } = await createApiKey(env.services.db, owner.user.id, 'theirs', ['account:read']);
  const other = await signedIn('reveal-other@example.com');
  for (const value of [key, 'ld_not-a-key-at-all-but-long-enough', 'garbage']) {
    other.client.cookies.set('ld_new_key', value);
    const page = await other.client.get('/account/keys');
    t.is(page.status, 200);
    t.is(page.$('#new-key').length, 0, value);
    t.false(page.text.includes(key));
    t.false(other.client.cookies.has('ld_new_key'), 'cleared after one view');
  }
});

test('revoking asks first: the confirmation changes nothing, the POST revokes; another person’s key is a 404', async (t) => {
  const { user, client, _csrf } = await signedIn('revoke@example.com');
  const { key, view } = await createApiKey(env.services.db, user.id, 'Nightly', ['account:read']);
  const ask = await client.get(`/account/keys/${view.id}/revoke`);
  t.is(ask.status, 200);
  t.is(ask.$('h1').text(), 'Revoke the key “Nightly”?');
  t.is(ask.$(`form[action="/account/keys/${view.id}/revoke"] button`).text(), 'Revoke key');
  t.is(ask.$('main form a[href="/account/keys"]').text(), 'Cancel');
  t.is((await api(env, 'GET', '/me/listings', { key })).status, 200);
  const stranger = await signedIn('revoke-stranger@example.com');
  for (const id of [String(view.id), '0', 'abc', '99999999'])
    t.is((await stranger.client.get(`/account/keys/${id}/revoke`)).status, 404, id);
  const done = await client.post(`/account/keys/${view.id}/revoke`, { _csrf });
  t.is(done.status, 303);
  t.is((await api(env, 'GET', '/me/listings', { key })).status, 401);
  t.is((await client.get(`/account/keys/${view.id}/revoke`)).status, 404, 'a revoked key has nothing to confirm');
});

test('the keys table fits a 375 px wide screen', async (t) => {
  const { user } = await signedIn('narrow@example.com');
  for (const name of ['A rather long key name for the nightly deploy pipeline', 'x'.repeat(100)]) {
    await createApiKey(env.services.db, user.id, name, ['account:read', 'listings:write', 'orders:write']);
  }
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 375, height: 800 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInOnPage(page, 'narrow@example.com', PASSWORD);
  await page.goto('/account/keys');
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
    cells: [...document.querySelectorAll('table td')].map((td) => td.getBoundingClientRect().right),
    label: getComputedStyle(document.querySelector('td[data-label="Last used"]')!, '::before').content,
  }));
  t.true(widths.page <= widths.viewport, `page ${widths.page} px wide in a ${widths.viewport} px viewport`);
  t.true(widths.cells.length >= 10);
  for (const right of widths.cells) t.true(right <= widths.viewport, String(right));
  t.is(widths.label, '"Last used: "', 'the stacked rows keep their labels');
});

test('staff are offered the scopes their role allows, and a staff key is made only right after the second factor', async (t) => {
  const db = env.services.db;
  const plain = await signedIn('keys-plain@example.com');
  t.is((await plain.client.get('/account/keys')).$('input[value^="staff:"]').length, 0, 'no staff scope for a person without a role');
  const forged = await plain.client.post('/account/keys', { _csrf: plain._csrf, name: 'forged', scopes: 'staff:orders' });
  t.is(forged.status, 400);
  t.is(forged.$('#f-scopes-error').text(), 'Choose scopes from the list.');
  t.is((await keysOf(plain.user.id)).length, 0);

  const staff = await signedIn('keys-support@example.com');
  const main = (await db('sites').where({ key: 'main' }).first('id'))!.id;
  await grant(db, { userId: staff.user.id, role: 'support', siteId: main, by: null, now: new Date() });
  const page = await staff.client.get('/account/keys');
  t.deepEqual(
    page
      .$('input[value^="staff:"]')
      .map((_, e) => page.$(e).attr('value'))
      .get(),
    ['staff:orders', 'staff:claims', 'staff:flows', 'staff:webhooks'],
  );
  const beyond = await staff.client.post('/account/keys', { _csrf: staff._csrf, name: 'beyond', scopes: 'staff:catalogue' });
  t.is(beyond.status, 400, 'a scope the role does not allow');
  const unverified = await staff.client.post('/account/keys', { _csrf: staff._csrf, name: 'support key', scopes: 'staff:orders' });
  t.is(unverified.status, 303);
  t.regex(unverified.location ?? '', /^\/account\/second-factor\?/);
  t.is((await keysOf(staff.user.id)).length, 0, 'nothing made before the factor');

  for (const id of await db('web_sessions').where({ user_id: staff.user.id }).pluck('id_hash')) {
    await markSessionFactor(db, id, 'totp', new Date());
  }
  const made = await staff.client.post('/account/keys', {
    _csrf: staff._csrf,
    name: 'support key',
    scopes: ['staff:orders', 'account:read'],
  });
  t.is(made.status, 303);
  t.is(made.location, '/account/keys');
  const [key] = await keysOf(staff.user.id);
  t.deepEqual(key.scopes, ['staff:orders', 'account:read']);
});
