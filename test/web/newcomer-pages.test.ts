import test from 'ava';
import { castVote } from '../../src/domain/ranking/votes.ts';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createUser } from '../../src/auth/users.ts';
import { insertDraft } from '../../src/domain/drafts/drafts.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { html, serve, serveExampleSite, text, type TestSite } from '../helpers/site.ts';
import { WebClient } from '../helpers/web.ts';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let site: TestSite;
let closedSite: TestSite;

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  await env.startWorkers();
  site = await serveExampleSite();
  closedSite = await serve({ '/': html('<h1>Private</h1>'), '/robots.txt': text('User-agent: *\nDisallow: /\n') });
});
test.after.always(async () => {
  await site?.close();
  await closedSite?.close();
  await close?.();
});

const PASSWORD = 'newcomer pages password';

/** A browser page that fails the test on CSP violations or page errors. */
async function newPage(t: { teardown(fn: () => Promise<void>): void }): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ baseURL: env.baseUrl });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|error/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return { page, problems };
}

/** Votes of `count` new accounts on a listing, this week. */
async function vote(listingId: number, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const voter = await createUser(env.services.db, `voter-${listingId}-${i}@example.com`);
    await env.services.db('users').where({ id: voter.id }).update({ email_verified_at: new Date() });
    await castVote(env.services.db, voter.id, listingId, new Date());
  }
}

test.serial('the home page says what to do while nothing launched this week', async (t) => {
  const { page, problems } = await newPage(t);
  await page.goto('/');
  await page.getByText('No listing has launched this week yet.').waitFor();
  t.is(await page.getByRole('link', { name: 'Create an account' }).getAttribute('href'), '/signup');
  t.true(await page.getByRole('searchbox', { name: 'Search listings' }).isVisible());
  t.deepEqual(problems, []);
});

test.serial('the home page ranks this week’s listings by votes and searches', async (t) => {
  const quiet = await insertLiveListing(env.services.db, { name: 'Quiet Quokka', headline: 'Note taking for teams' });
  const loud = await insertLiveListing(env.services.db, { name: 'Orbital Analytics', headline: 'Analytics for rocket launches' });
  await insertLiveListing(env.services.db, { name: 'Unlisted Umbrella', headline: 'Shade', site: 'makers' });
  await vote(loud, 3);
  await vote(quiet, 1);
  const { page, problems } = await newPage(t);
  await page.goto('/');
  const ranked = page.locator('ol.ranking-list > li');
  t.deepEqual(await ranked.locator('h3').allInnerTexts(), ['Orbital Analytics', 'Quiet Quokka']);
  t.deepEqual(await ranked.locator('.card-body p').allInnerTexts(), ['Analytics for rocket launches', 'Note taking for teams']);
  t.deepEqual(await ranked.locator('[data-votes]').allInnerTexts(), ['3', '1']);

  await page.getByRole('searchbox', { name: 'Search listings' }).fill('rocket');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(/\/\?q=rocket$/);
  t.is(await page.getByRole('searchbox', { name: 'Search listings' }).inputValue(), 'rocket');
  t.deepEqual(await page.locator('ol.listings li a').allInnerTexts(), ['Orbital Analytics']);
  await page.getByRole('link', { name: 'Orbital Analytics' }).click();
  await page.waitForURL(/\/listings\/orbital-analytics/);

  await page.goto(`/?q=${encodeURIComponent('<b>umbrella</b>')}`);
  t.regex(await page.locator('main').innerText(), /No live listing matches “<b>umbrella<\/b>”/);
  t.deepEqual(problems, []);
});

test('the home page refuses a search longer than search_listings accepts', async (t) => {
  const res = await new WebClient(env.baseUrl).get(`/?q=${'x'.repeat(201)}`);
  t.is(res.status, 400);
  const twice = await new WebClient(env.baseUrl).get('/?q=a&q=b');
  t.is(twice.status, 400);
});

async function signIn(t: { teardown(fn: () => Promise<void>): void }, email: string) {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  const { page, problems } = await newPage(t);
  await signInOnPage(page, email, PASSWORD);
  return { user, page, problems };
}

test('a draft from a website, followed to ready, submitted, then listed with its next step', async (t) => {
  const { user, page, problems } = await signIn(t, 'newcomer@example.com');
  await page.getByRole('link', { name: 'Your listings' }).first().click();
  await page.waitForURL(/\/account\/listings$/);
  await page.getByText('Nothing yet.').waitFor();

  // A bad address stays on the page with the API's message, and nothing is stored.
  await page.getByLabel('Website address').fill('ftp://files.example.com/');
  await page.getByRole('button', { name: 'Draft my listing' }).click();
  await page.locator('#f-url-error').waitFor();
  t.regex(page.url(), /\/account\/listings$/);
  t.is(await page.getByLabel('Website address').inputValue(), 'ftp://files.example.com/');
  t.is((await env.services.db('drafts').where({ owner_id: user.id })).length, 0);

  await page.getByLabel('Website address').fill(site.url);
  await page.getByRole('button', { name: 'Draft my listing' }).click();
  await page.waitForURL(/\/account\/drafts\/\d+$/);
  // The page polls by itself until the workflow is done.
  await page.getByText('Your draft is ready for you to review.').waitFor({ timeout: 60_000 });
  t.regex(await page.getByLabel('Name', { exact: true }).inputValue(), /Quillstone/);
  t.regex(await page.getByLabel('Headline').inputValue(), /Invoicing for small studios/);
  t.true(await page.getByRole('checkbox', { name: 'Finance' }).isChecked());

  await page.getByRole('button', { name: 'Submit listing' }).click();
  await page.waitForURL(/\/account\/listings\/\d+\?notice=draft-submitted$/);
  await page.getByText('Your draft is now a listing. Next, choose how to launch it.').waitFor();
  const listing = await env.services.db('listings').where({ owner_id: user.id }).first('id');
  // The notice and the next step agree.
  t.is(await page.locator('[data-field=action] a').textContent(), 'Choose how to launch');
  await page.goto('/account/listings');
  const row = page.locator('tbody tr', { hasText: 'Quillstone' });
  t.is(await row.count(), 1);
  t.regex(await row.innerText(), /\(listing\)\s+Your listing is submitted but not launched yet\./);
  t.is(await row.getByRole('link', { name: /Quillstone/ }).getAttribute('href'), `/account/listings/${listing!.id}`);
  t.is(await row.getByRole('link', { name: 'Choose how to launch' }).getAttribute('href'), `/account/listings/${listing!.id}/launch`);
  // A reload of the listings page creates nothing (the POST was answered with a redirect).
  await page.reload();
  t.is((await env.services.db('drafts').where({ owner_id: user.id })).length, 1);
  t.deepEqual(problems, []);
});

test('a failed draft shows the reason and a retry that starts a new draft', async (t) => {
  const { user, page, problems } = await signIn(t, 'unlucky@example.com');
  await page.goto('/account/listings');
  await page.getByLabel('Website address').fill(closedSite.url);
  await page.getByRole('button', { name: 'Draft my listing' }).click();
  await page.getByText(/^We could not draft from this website: /).waitFor({ timeout: 60_000 });
  t.regex(await page.locator('.draft-status').innerText(), /robots\.txt/);
  await page.goto('/account/listings');
  const row = page.locator('tbody tr', { hasText: closedSite.url });
  t.regex(await row.innerText(), /We could not draft from this website: /);
  await row.getByRole('button', { name: 'Try again' }).click();
  await page.waitForURL(/\/account\/drafts\/\d+$/);
  const drafts = await env.services.db('drafts').where({ owner_id: user.id }).orderBy('id');
  t.is(drafts.length, 2);
  t.is(drafts[1].url, closedSite.url);
  t.true(page.url().endsWith(`/account/drafts/${drafts[1].id}`));
  t.deepEqual(problems, []);
});

test('draft pages are the owner’s only, and forms need the CSRF token', async (t) => {
  const owner = await createVerifiedUser(env.services.db, 'owner-only@example.com', PASSWORD);
  const draft = await insertDraft(env.services.db, { ownerId: owner.id, siteId: 1, url: 'https://mine.example/' });
  await createVerifiedUser(env.services.db, 'snoop@example.com', PASSWORD);
  const snoop = new WebClient(env.baseUrl);
  await snoop.signIn('snoop@example.com', PASSWORD);
  t.is((await snoop.get(`/account/drafts/${draft.id}`)).status, 404);
  for (const bad of ['0', 'abc', '99999999999', '1.5']) t.is((await snoop.get(`/account/drafts/${bad}`)).status, 404, bad);
  const _csrf = await snoop.csrfFrom('/account/listings');
  t.is((await snoop.post(`/account/drafts/${draft.id}/submit`, { _csrf })).status, 404);
  t.is((await snoop.post('/account/listings', { url: site.url })).status, 403, 'no token');
  const anonymous = await new WebClient(env.baseUrl).get('/account/listings');
  t.is(anonymous.status, 303);
  t.regex(anonymous.location ?? '', /^\/signin/);
  const [{ count }] = await env.services
    .db('drafts')
    .count({ count: '*' })
    .whereIn('owner_id', env.services.db('users').select('id').where({ email: 'snoop@example.com' }));
  t.is(Number(count), 0);
});

test('the create-draft form refuses hostile addresses with the API’s messages and stores nothing', async (t) => {
  const user = await createVerifiedUser(env.services.db, 'hostile-form@example.com', PASSWORD);
  const client = new WebClient(env.baseUrl);
  await client.signIn('hostile-form@example.com', PASSWORD);
  const _csrf = await client.csrfFrom('/account/listings');
  const cases: Record<string, string | string[]>[] = [
    { url: 'javascript:alert(1)' },
    { url: `https://example.com/${'x'.repeat(5000)}` },
    { url: 'http://user:secret@example.com/' },
    { url: ['https://a.example/', 'https://b.example/'] },
    {},
    { url: '<script>alert(1)</script>' },
  ];
  for (const form of cases) {
    const res = await client.post('/account/listings', { _csrf, ...form });
    t.is(res.status, 400, JSON.stringify(form).slice(0, 80));
    t.is(res.$('#f-url-error').length, 1, JSON.stringify(form).slice(0, 80));
    t.is(res.$('.error-summary a[href="#f-url"]').length, 1);
    t.false(res.text.includes('<script>alert(1)</script>'), 'the value is escaped');
  }
  t.is((await env.services.db('drafts').where({ owner_id: user.id })).length, 0);
});
