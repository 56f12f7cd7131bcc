import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { earliestFreeWeek, isoWeekLabel } from '../../src/workflows/contracts/weeks.ts';
import { weekOfText, weekText } from '../../src/domain/time/week-words.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { draftListing, insertCompleteProfile, siteSettings } from '../helpers/launches.ts';
import { serve, type TestSite } from '../helpers/site.ts';
import { mailsTo, WebClient } from '../helpers/web.ts';

// The owner's launch panel in a real browser: choosing the free launch, the snippets and their
// copy buttons, "Check now" as a CSRF-checked form post, the check limit; ownership and CSRF.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
let site: TestSite;
let ownerPage = '<p>No badge yet</p>';

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  site = await serve({ '/': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(ownerPage) });
});
test.after.always(async () => {
  await site?.close();
  await close?.();
});

const PASSWORD = 'launch panel password';
const db = () => env.services.db;

async function ownerWithListing(email: string) {
  const user = await createVerifiedUser(db(), email, PASSWORD);
  await insertCompleteProfile(db(), user.id);
  const listing = await draftListing(db(), user.id, site.url, 'Panel Co');
  return { user, listing };
}

test.serial('launch panel: choose free, copy a snippet, Check now → scheduled; a second check at once is refused', async (t) => {
  await siteSettings(db(), 'main', { free_queue_weeks: 2 });
  const { listing } = await ownerWithListing('panel@example.com');
  const context = await browser.newContext({ baseURL: env.baseUrl });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|error/i.test(m.text())) problems.push(m.text());
  });
  await signInOnPage(page, 'panel@example.com', PASSWORD);
  // The account overview links the listing's home by name; the home links the launch panel, which links back.
  await page.getByRole('link', { name: /^Panel Co/ }).click();
  await page.waitForURL(new RegExp(`/account/listings/${listing.id}$`));
  await page.getByRole('link', { name: 'Launch panel' }).click();
  await page.waitForURL(new RegExp(`/account/listings/${listing.id}/launch$`));
  t.is(await page.getByRole('link', { name: /^Back to Panel Co/ }).getAttribute('href'), `/account/listings/${listing.id}`);
  t.is(await page.locator('[data-field=status]').getAttribute('data-status'), 'draft');
  t.is(await page.locator('[data-field=status]').textContent(), 'Your listing is submitted but not launched yet.');
  t.is(await page.getByRole('link', { name: 'Launch now or pick a week' }).getAttribute('href'), `/account/listings/${listing.id}/promote`);

  // The week the free launch gets is said before the button: the first with room, two weeks out.
  const offered = earliestFreeWeek(new Date(), 2);
  t.is(await page.locator('[data-field=free-week]').getAttribute('data-week-start'), offered);
  t.true((await page.locator('[data-field=free-week]').textContent())!.includes(`gets ${weekText(offered)}`));
  await page.getByRole('button', { name: 'Launch for free' }).click();
  await page.getByText('You chose the free launch.').waitFor();
  t.is(await page.locator('[data-field=status]').getAttribute('data-status'), 'awaiting_badge');
  t.is(await page.locator('[data-field=status]').textContent(), 'Your free launch waits for our badge on your website.');
  t.deepEqual(await page.locator('.missing li').evaluateAll((items) => items.map((li) => li.getAttribute('data-code'))), ['badge_missing']);
  t.is(await page.locator('[data-badge]').getAttribute('data-badge'), 'missing');

  // The snippet as shown is what the owner pastes; the copy button works (or selects the text).
  const snippet = (await page.locator('#snippet-light-html').textContent())!;
  t.true(snippet.startsWith(`<a href="${env.baseUrl}/listings/${listing.slug}">`));
  await page.getByRole('button', { name: 'Copy HTML (light)' }).click();
  // The status is written when the clipboard promise settles: wait for it rather than read it at once.
  await page
    .locator('#copy-status')
    .getByText(/Copied|Selected/)
    .waitFor();
  t.regex((await page.locator('#copy-status').textContent())!, /Copied|Selected/);
  t.true(await page.locator('img[src$=".svg?theme=dark"]').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));

  ownerPage = `<html><body><footer>${snippet}</footer></body></html>`;
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.getByText('We checked your site for the badge just now.').waitFor();
  t.is(await page.locator('[data-field=status]').getAttribute('data-status'), 'scheduled');
  t.is(await page.locator('[data-badge]').getAttribute('data-badge'), 'present');
  const week = (await db()('listings').where({ id: listing.id }).first('launch_week'))!.launch_week;
  t.is(week, offered);
  t.is(await page.locator('[data-field=launch-week]').getAttribute('data-week'), week);
  t.notRegex(await page.content(), /\d{4}-W\d{2}/);
  // The mail that says so names the week by its dates, not its ISO label.
  const [mail] = (await mailsTo(db(), 'panel@example.com')).filter((m) => m.subject.includes('launching'));
  t.is(mail!.subject, `${(await db()('listings').where({ id: listing.id }).first('name'))!.name}: launching in the ${weekOfText(week!)}`);
  t.notRegex(`${mail!.subject}\n${mail!.body_text}`, /\d{4}-W\d{2}/);
  t.regex((await page.locator('[data-field=launch-week]').textContent())!, new RegExp(`^Week ${Number(isoWeekLabel(week!).slice(-2))} · `));
  t.is(await page.locator('[data-field=queue-position]').textContent(), '1st launch of that week');

  await page.getByRole('button', { name: 'Check now' }).click();
  await page.locator('.error-summary').waitFor();
  t.regex((await page.locator('.error-summary').textContent())!, /checked moments ago/);
  t.deepEqual(problems, []);
});

test.serial('Check now needs the CSRF token; another owner’s panel does not exist', async (t) => {
  const { user, listing } = await ownerWithListing('csrf-panel@example.com');
  const web = new WebClient(env.baseUrl);
  t.is((await web.signIn(user.email, PASSWORD)).status, 303);
  const forged = await web.post(`/account/listings/${listing.id}/badge-check`, { _csrf: 'forged' });
  t.is(forged.status, 403);
  const missing = await web.post(`/account/listings/${listing.id}/free`, {});
  t.is(missing.status, 403);
  t.is((await db()('badge_checks').where({ listing_id: listing.id })).length, 0);
  t.like(await db()('listings').where({ id: listing.id }).first(), { plan: null, status: 'draft' });

  const mallory = await createVerifiedUser(db(), 'mallory-panel@example.com', PASSWORD);
  const other = new WebClient(env.baseUrl);
  await other.signIn(mallory.email, PASSWORD);
  t.is((await other.get(`/account/listings/${listing.id}`)).status, 404);
  t.is((await other.get(`/account/listings/${listing.id}/launch`)).status, 404);
  const token = await other.csrfFrom('/account');
  t.is((await other.post(`/account/listings/${listing.id}/badge-check`, { _csrf: token })).status, 404);
  t.is((await other.post(`/account/listings/${listing.id}/free`, { _csrf: token })).status, 404);
  for (const bad of ['0', 'abc', '99999999999', '1e3']) {
    t.is((await other.get(`/account/listings/${bad}`)).status, 404, bad);
    t.is((await other.get(`/account/listings/${bad}/launch`)).status, 404, bad);
  }
  t.is((await db()('badge_checks').where({ listing_id: listing.id })).length, 0);
  t.is((await new WebClient(env.baseUrl).get(`/account/listings/${listing.id}`)).status, 303);
});
