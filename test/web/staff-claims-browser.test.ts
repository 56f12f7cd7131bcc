import { randomBytes } from 'node:crypto';
import test from 'ava';
import { consolePerson, STAFF_PASSWORD, verifyFactor } from '../helpers/staff-cast.ts';
import type { Browser } from 'playwright-core';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { axeClean } from '../helpers/axe.ts';
import { fitsWidth, signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { WebClient } from '../helpers/web.ts';

// The console's claims in the browser, at 390 px and 1280 px with axe on each page: support lists
// pending claims, opens one, checks it now, approves it with a reason after a confirm page; the
// claimant then reads the reason on their claim page. A moderator gets 403 and decides nothing.

const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { CLAIM_CHECK_SCHEDULE: '1h/2h' }, { clock }));
  await env.startWorkers();
});
test.after.always(() => close?.());

const db = () => env.services.db;
const person = (roles: StaffRole[]) => consolePerson(env, clock, roles);
const withFactor = (userId: number) => verifyFactor(env, clock, userId);
const unique = () => randomBytes(4).toString('hex');
const PASSWORD = STAFF_PASSWORD;

/** A pending meta claim by a person who can sign in, on a listing of its own company. */
async function pendingClaim() {
  const claimant = await person([]);
  const { key } = await createApiKey(db(), claimant.userId, 'k', ['listings:write']);
  const tag = `bc${unique()}`;
  const listing = await insertLiveListing(db(), { name: `Browser Claimed ${tag}`, url: `http://127.0.0.1:9/${tag}` });
  const { slug } = (await db()('listings').where({ id: listing }).first('slug'))!;
  const made = await api(env, 'POST', '/claims', { key, body: { slug, method: 'meta' } });
  if (made.status !== 201) throw new Error(JSON.stringify(made.body));
  return { id: made.body.id as number, listing, claimant };
}

for (const [label, viewport] of [
  ['1280 px', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(`${label}: support lists pending claims, checks one now, approves it with a reason; the claimant reads it`, async (t) => {
    const claim = await pendingClaim();
    const support = await person(['support']);
    const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
    const page = await context.newPage();
    await signInOnPage(page, support.email, PASSWORD);
    await withFactor(support.userId);
    await page.goto('/staff');
    await page.getByRole('link', { name: 'Check ownership claims and approve or reject them' }).click();
    await page.getByLabel('Status').selectOption('pending');
    await page.getByRole('button', { name: 'Show claims' }).click();
    await page.waitForURL(/status=pending/);
    const row = page.locator(`tr[data-claim="${claim.id}"]`);
    await row.waitFor();
    t.regex(await row.innerText(), new RegExp(`Waiting for proof[\\s\\S]*never`));
    t.true(await fitsWidth(page), 'the list fits the screen');
    await axeClean(t, page);

    await row.getByRole('link', { name: `Claim ${claim.id}` }).click();
    await page.waitForURL(new RegExp(`/staff/claims/${claim.id}$`));
    t.regex(await page.locator('[data-claimant]').innerText(), new RegExp(claim.claimant.email));
    t.is(await page.locator('[data-checks="0"]').count(), 1);
    await page.getByRole('button', { name: 'Check now' }).click();
    await page.waitForURL(/done=rechecked/);
    await page.locator('[data-check-result]').first().waitFor();
    t.true(await fitsWidth(page), 'the claim page fits the screen');
    await axeClean(t, page);

    // Without a reason the browser keeps the form; with one, a page says what approving does first.
    await page.getByRole('button', { name: 'Approve…' }).click();
    t.regex(page.url(), new RegExp(`/staff/claims/${claim.id}\\?done=rechecked$`));
    const reason = `Proved by the registrar’s letter ${unique()}`;
    await page.locator('#f-approve-reason').fill(reason);
    await page.getByRole('button', { name: 'Approve…' }).click();
    await page.locator('[data-will-do]').waitFor();
    t.regex(await page.locator('[data-will-do]').innerText(), /becomes the owner/);
    t.is((await db()('claims').where({ id: claim.id }).first('status'))!.status, 'pending', 'nothing is decided before the confirmation');
    await axeClean(t, page);
    await page.getByRole('button', { name: 'Approve the claim' }).click();
    await page.waitForURL(/done=approve/);
    t.is(await page.locator('[data-claim-status="verified"]').count(), 1);
    t.regex(await page.locator('[data-decision="approved"]').innerText(), new RegExp(support.email));
    t.is(await page.getByRole('button', { name: 'Approve…' }).count(), 0, 'no decision forms on a decided claim');
    await axeClean(t, page);
    t.is((await db()('listings').where({ id: claim.listing }).first('owner_id'))!.owner_id, claim.claimant.userId);
    await context.close();

    const claimantContext = await browser.newContext({ baseURL: env.baseUrl, viewport });
    const claimantPage = await claimantContext.newPage();
    await signInOnPage(claimantPage, claim.claimant.email, PASSWORD);
    await claimantPage.goto('/account/claims');
    const decision = claimantPage.locator(`#claim-${claim.id} [data-decision="approved"]`);
    await decision.waitFor();
    t.true((await decision.innerText()).includes(reason));
    await axeClean(t, claimantPage);
    await claimantContext.close();
  });
}

test.serial('a moderator gets 403 on the claim pages and a forced decision decides nothing', async (t) => {
  const claim = await pendingClaim();
  const moderator = await person(['moderator']);
  const web = new WebClient(env.baseUrl);
  await web.signIn(moderator.email, PASSWORD);
  await withFactor(moderator.userId);
  t.is((await web.get('/staff/claims')).status, 403);
  t.is((await web.get(`/staff/claims/${claim.id}`)).status, 403);
  const _csrf = await web.csrfFrom('/account');
  const forced = await web.post(`/staff/claims/${claim.id}/decision`, { _csrf, decision: 'approve', reason: 'forced', confirm: 'yes' });
  t.is(forced.status, 403);
  t.is((await db()('claims').where({ id: claim.id }).first('status'))!.status, 'pending');
});

test.serial('a forced empty reason is a sentence on the page (422), and a decided claim cannot be decided again', async (t) => {
  const claim = await pendingClaim();
  const support = await person(['support']);
  const web = new WebClient(env.baseUrl);
  await web.signIn(support.email, PASSWORD);
  await withFactor(support.userId);
  const _csrf = await web.csrfFrom(`/staff/claims/${claim.id}`);
  const empty = await web.post(`/staff/claims/${claim.id}/decision`, { _csrf, decision: 'reject', reason: ' ', confirm: 'yes' });
  t.is(empty.status, 422);
  t.regex(empty.$('.error-summary').text(), /Say why/);
  const done = await web.post(`/staff/claims/${claim.id}/decision`, {
    _csrf,
    decision: 'reject',
    reason: 'No proof after a week',
    confirm: 'yes',
  });
  t.is(done.status, 303);
  t.is((await db()('claims').where({ id: claim.id }).first('status'))!.status, 'rejected');
  const again = await web.post(`/staff/claims/${claim.id}/decision`, {
    _csrf,
    decision: 'approve',
    reason: 'changed my mind',
    confirm: 'yes',
  });
  t.is(again.status, 409);
  t.regex(again.$('.error-summary').text(), /rejected; only a pending claim/);
});
