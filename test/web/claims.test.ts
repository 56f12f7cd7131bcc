import type { ClaimMethod } from '../../src/domain/claims/instructions.ts';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { startTestDns, type TestDns } from '../helpers/dns-server.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { linkIn, mailsTo, WebClient } from '../helpers/web.ts';
import { workflowResult } from '../helpers/workflows.ts';

/** The claim pages over HTTP with a cookie-keeping client: the listing prompt, the form, Check now, the emailed link. */

let env: TestEnv;
let dns: TestDns;
test.before(async () => {
  dns = await startTestDns();
  env = await startTestEnv(import.meta.url, {
    CLAIM_DNS_SERVERS: dns.server,
    CLAIM_CHECK_SCHEDULE: '1m/1h',
    CLAIM_VERIFY_MIN_INTERVAL: '5s',
  });
  await env.startWorkers();
});
test.after.always(async () => {
  await env?.close();
  await dns?.close();
});

const db = () => env.services.db;
const PASSWORD = 'claim pages password';

async function signedIn() {
  const email = `claimant-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  return { user, client };
}

async function company(ownerId?: number) {
  const tag = `web${randomBytes(4).toString('hex')}`;
  const id = await insertLiveListing(db(), { name: `Co ${tag}`, url: `https://${tag}.com/`, ownerId });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  return { id, slug: slug as string, host: `${tag}.com` };
}

/** Starts a claim through the form; returns the new claim's row (this user's, of this listing: tests run concurrently). */
async function claimByForm(client: WebClient, userId: number, slug: string, method: ClaimMethod, email = '') {
  const form = await client.get(`/account/claims/new?slug=${slug}`);
  const _csrf = form.$('input[name=_csrf]').val() as string;
  const res = await client.post('/account/claims', { _csrf, slug, method, email });
  if (res.status !== 303) throw new Error(`claim form answered ${res.status}: ${res.$('.error-summary').text()}`);
  const { id: listingId } = (await db()('listings').where({ slug }).first('id'))!;
  return db()('claims').where({ user_id: userId, listing_id: listingId, method, status: 'pending' }).first();
}

test('the listing page offers "Claim it" to signed-in people on unowned listings only', async (t) => {
  const unowned = await company();
  const owned = await company((await env.user()).userId);
  const { client } = await signedIn();
  const page = await client.get(`/listings/${unowned.slug}`);
  t.is(page.$('.claim').text(), 'Is this your company? Claim it');
  t.is(page.$('.claim a').attr('href'), `/account/claims/new?slug=${unowned.slug}`);
  t.is((await client.get(`/listings/${owned.slug}`)).$('.claim').length, 0);
  t.is((await new WebClient(env.baseUrl).get(`/listings/${unowned.slug}`)).$('.claim').length, 0);
});

test('claim by form, see the instructions, Check now (rate-limited), verified', async (t) => {
  const listing = await company();
  const { user, client } = await signedIn();
  const claim = await claimByForm(client, user.id, listing.slug, 'dns');
  t.is(claim!.user_id, user.id);
  const page = await client.get('/account/claims?notice=started');
  const card = page.$(`[data-claim="${claim!.id}"]`);
  t.is(card.attr('data-status'), 'pending');
  const codes = card
    .find('code')
    .map((_, el) => page.$(el).text())
    .get();
  t.deepEqual(codes, ['TXT', `_listing-directory-challenge.${listing.host}`, `listing-directory-verification=${claim!.token}`]);
  t.is(card.find('button[data-copy]').length, 2);

  const _csrf = card.find('input[name=_csrf]').val() as string;
  const checked = await client.post(`/account/claims/${claim!.id}/check`, { _csrf });
  t.is(checked.location, `/account/claims?notice=checked#claim-${claim!.id}`);
  const after = await client.get('/account/claims');
  t.is(after.$(`[data-claim="${claim!.id}"] .last-check`).attr('data-result'), 'not_found');
  t.is((await client.post(`/account/claims/${claim!.id}/check`, { _csrf })).location, `/account/claims?notice=wait#claim-${claim!.id}`);

  dns.zone.set(`_listing-directory-challenge.${listing.host}`, { txt: [[`listing-directory-verification=${claim!.token}`]] });
  // The interval has passed (its length has its own tests): no 5-second sleep. The cooldown is
  // the rate limiter's row since migration 025 dropped claims.last_requested_check_at.
  await db()('rate_limits')
    .where({ key: `claim-check:${claim!.id}` })
    .delete();
  t.is((await client.post(`/account/claims/${claim!.id}/check`, { _csrf })).location, `/account/claims?notice=verified#claim-${claim!.id}`);
  t.is((await db()('listings').where({ id: listing.id }).first('owner_id'))!.owner_id, user.id);
  // Another person's claim: 404, and no form without the CSRF token.
  const stranger = await signedIn();
  const token = await stranger.client.csrfFrom('/account/claims');
  t.is((await stranger.client.post(`/account/claims/${claim!.id}/check`, { _csrf: token })).status, 404);
  t.is((await client.post(`/account/claims/${claim!.id}/check`, {})).status, 403);
});

test('the claim form says at once that email cannot prove a company under a private suffix', async (t) => {
  const id = await insertLiveListing(db(), { name: `Pages ${randomBytes(3).toString('hex')}`, url: 'https://acme.vercel.app/' });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  const { client } = await signedIn();
  const form = await client.get(`/account/claims/new?slug=${slug}`);
  t.regex(form.$('#f-email-hint').text(), /shared domain vercel\.app, where no address is the company's; use dns, meta or file/);
});

test('the claim form says what is wrong and saves nothing', async (t) => {
  const listing = await company();
  const { client } = await signedIn();
  const _csrf = (await client.get(`/account/claims/new?slug=${listing.slug}`)).$('input[name=_csrf]').val() as string;
  const foreign = await client.post('/account/claims', { _csrf, slug: listing.slug, method: 'email', email: 'me@elsewhere.com' });
  t.is(foreign.status, 400);
  t.regex(foreign.$('#f-email-error').text(), new RegExp(`address at ${listing.host.replace('.', '\\.')}`));
  const noMethod = await client.post('/account/claims', { _csrf, slug: listing.slug, email: '' });
  t.is(noMethod.status, 400);
  t.is(noMethod.$('.error-summary li').first().text(), 'Choose how to verify');
  t.is((await client.get('/account/claims/new?slug=nope')).status, 404);
  t.is(await db()('claims').where({ listing_id: listing.id }).first(), undefined);
});

test('the emailed link: sign in first, another account changes nothing, the claimant verifies once', async (t) => {
  const previous = await signedIn();
  const listing = await company(previous.user.id);
  const { user, client } = await signedIn();
  const claim = await claimByForm(client, user.id, listing.slug, 'email', `founder@${listing.host}`);
  const [mail] = await mailsTo(db(), `founder@${listing.host}`);
  const link = new URL(linkIn(mail!, '/claims/email-link'));
  const path = link.pathname + link.search;

  const anonymous = await new WebClient(env.baseUrl).get(path);
  t.is(anonymous.status, 303);
  t.is(anonymous.location, `/signin?return_to=${encodeURIComponent(path)}`);

  const other = await signedIn();
  const wrong = await other.client.get(path);
  t.is(wrong.status, 403);
  t.is(wrong.$('h1').text(), 'Sign in as the claimant first');
  t.is((await db()('claim_email_links').where({ claim_id: claim!.id }).first())!.used_at, null);

  const opened = await client.get(path);
  t.is(opened.status, 200);
  t.is(opened.$('[data-outcome]').attr('data-outcome'), 'verified');
  t.is((await db()('listings').where({ id: listing.id }).first('owner_id'))!.owner_id, user.id);
  t.is(await workflowResult(env, `claim:${claim!.id}`), 'verified');
  // The previous owner sees it on the notifications page (and got a mail).
  const told = await previous.client.get('/account/notifications');
  t.is(told.$('[data-notification] h2').first().text(), `${opened.$('[data-outcome] a').first().text()} has a new owner`);
  t.is((await mailsTo(db(), previous.user.email)).filter((m) => m.subject.endsWith('has a new owner')).length, 1);
  const again = await client.get(path);
  t.is(again.status, 410);
  t.is(again.$('[data-outcome]').attr('data-outcome'), 'used');
  t.is((await client.get('/claims/email-link?token=nonsense')).status, 400);
});

test('the emailed link expires; a pending email claim gets at most 3 more links', async (t) => {
  const listing = await company();
  const { user, client } = await signedIn();
  const claim = await claimByForm(client, user.id, listing.slug, 'email', `ceo@${listing.host}`);
  const _csrf = await client.csrfFrom('/account/claims');
  for (let i = 1; i <= 3; i++) {
    const resent = await client.post(`/account/claims/${claim!.id}/resend`, { _csrf });
    t.is(resent.location, '/account/claims?notice=resent', `resend ${i}: ${resent.status} ${resent.$('main').text().trim()}`);
  }
  const refused = await client.post(`/account/claims/${claim!.id}/resend`, { _csrf });
  t.is(refused.status, 409);
  t.regex(refused.$('main').text(), /sent 4 times already/);
  const mails = await mailsTo(db(), `ceo@${listing.host}`);
  t.is(mails.length, 4);
  const links = mails.map((m) => linkIn(m, '/claims/email-link'));
  t.is(new Set(links).size, 4);

  await db()('claim_email_links')
    .where({ claim_id: claim!.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const expired = await client.get(new URL(links[0]!).pathname + new URL(links[0]!).search);
  t.is(expired.status, 410);
  t.is(expired.$('[data-outcome]').attr('data-outcome'), 'expired');
  t.is((await db()('claims').where({ id: claim!.id }).first())!.status, 'pending');
});
