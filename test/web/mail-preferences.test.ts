import test, { type ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { mailLinkKey, signStop } from '../../src/domain/mail-preferences/tokens.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { WebClient } from '../helpers/web.ts';

/** The mail section of /account in Chromium at 390 px (axe on each state), its form's CSRF check, and the same choices over REST. */

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
});
test.after.always(async () => {
  await close?.();
});

const PASSWORD = 'mail preferences password';
const db = () => env.services.db;
const stops = async (userId: number) =>
  db()('mail_stops').where({ user_id: userId }).orderBy(['kind', 'listing_id']).select('kind', 'listing_id');

async function checkPage(t: ExecutionContext, page: Page, what: string) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  t.true(overflow <= 0, `${what}: no sideways scroll at 390 px (${overflow} px too wide)`);
}

test('a signed-in person sees what they receive on /account and switches kinds on and off', async (t) => {
  t.timeout(90_000);
  const email = `prefs-${Date.now()}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const listingId = await insertLiveListing(db(), { name: 'Browser Rockets' });
  await db()('listing_followers').insert({ listing_id: listingId, user_id: user.id });
  // Stopped from a mail's link before: the account page lists the listing, off.
  const link = `${env.baseUrl}/unsubscribe/${signStop(await mailLinkKey(db()), { userId: user.id, kind: 'follower_updates', listingId })}`;
  t.is(
    (
      await fetch(link, {
        method: 'POST',
        body: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    ).status,
    200,
  );

  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  await page.getByRole('heading', { name: 'Mails we send you' }).waitFor();
  const box = (name: string) => page.getByRole('checkbox', { name });
  t.true(await box('Updates of the listings you follow').isChecked());
  t.true(await box('Launch reminders').isChecked());
  t.true(await box('Weekly results').isChecked());
  t.false(await box('Updates of Browser Rockets').isChecked());
  await checkPage(t, page, 'the account page with its mail section');

  await box('Weekly results').uncheck();
  await box('Updates of Browser Rockets').check();
  await page.getByRole('button', { name: 'Save mail choices' }).click();
  await page.getByRole('status').getByText('Your mail choices are saved.').waitFor();
  t.regex(page.url(), /\/account\?notice=mail-saved#mail$/);
  t.false(await box('Weekly results').isChecked());
  t.true(await box('Launch reminders').isChecked());
  t.is(await box('Updates of Browser Rockets').count(), 0, 'the listing is on again, so it is no longer listed');
  t.deepEqual(await stops(user.id), [{ kind: 'weekly_results', listing_id: null }]);
  await checkPage(t, page, 'the account page after saving');

  // All follower updates off: one stop for every listing.
  await box('Updates of the listings you follow').uncheck();
  await box('Weekly results').check();
  await page.getByRole('button', { name: 'Save mail choices' }).click();
  await page.getByRole('status').waitFor();
  t.false(await box('Updates of the listings you follow').isChecked());
  t.deepEqual(await stops(user.id), [{ kind: 'follower_updates', listing_id: null }]);
});

test('the form needs its CSRF token and a session; nothing changes without them', async (t) => {
  const email = `prefs-csrf-${Date.now()}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const anonymous = new WebClient(env.baseUrl);
  const signedOut = await anonymous.post('/account/mail', { _csrf: await anonymous.csrfFrom('/signin') });
  t.is(signedOut.status, 303);
  t.regex(signedOut.location ?? '', /\/signin/);

  const client = new WebClient(env.baseUrl);
  t.is((await client.signIn(email, PASSWORD)).status, 303);
  t.is((await client.post('/account/mail', { receive: ['launch_reminders'] })).status, 403);
  t.is((await client.post('/account/mail', { _csrf: 'forged', receive: ['launch_reminders'] })).status, 403);
  t.deepEqual(await stops(user.id), []);
  const _csrf = await client.csrfFrom('/account');
  const saved = await client.post('/account/mail', {
    _csrf,
    receive: ['follower_updates', 'weekly_results', 'comment_replies', 'listing_comments'],
  });
  t.is(saved.status, 303);
  t.deepEqual(await stops(user.id), [{ kind: 'launch_reminders', listing_id: null }]);
  const overview = await client.get('/account');
  t.is(overview.$('#mail').text(), 'Mails we send you');
  t.false(overview.$('input[name=receive][value=launch_reminders]').is(':checked'));
  t.true(overview.$('input[name=receive][value=weekly_results]').is(':checked'));
});

test('get_mail_preferences and update_mail_preferences over REST', async (t) => {
  const owner = await env.user();
  const listingId = await insertLiveListing(db(), { name: 'Rest Rockets' });
  const before = await api(env, 'GET', '/me/mail-preferences', { key: owner.key });
  t.is(before.status, 200);
  t.deepEqual(before.body, {
    kinds: [
      { kind: 'follower_updates', receiving: true },
      { kind: 'launch_reminders', receiving: true },
      { kind: 'weekly_results', receiving: true },
      { kind: 'comment_replies', receiving: true },
      { kind: 'listing_comments', receiving: true },
    ],
    stopped_listings: [],
  });
  const changed = await api(env, 'PATCH', '/me/mail-preferences', {
    key: owner.key,
    body: { launch_reminders: false, listings: [{ listing_id: listingId, receiving: false }] },
  });
  t.is(changed.status, 200);
  t.deepEqual(changed.body.kinds[1], { kind: 'launch_reminders', receiving: false });
  t.deepEqual(changed.body.stopped_listings, [
    { listing_id: listingId, name: 'Rest Rockets', slug: changed.body.stopped_listings[0].slug },
  ]);
  const readOnly = await createApiKey(db(), owner.userId, 'reader', ['account:read']);
  t.is((await api(env, 'PATCH', '/me/mail-preferences', { key: readOnly.key, body: { weekly_results: false } })).status, 403);
  t.is((await api(env, 'PATCH', '/me/mail-preferences', { key: owner.key, body: { weekly_results: 'no' } })).status, 400);
});
