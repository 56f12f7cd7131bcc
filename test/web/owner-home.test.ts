import test, { type ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertDraftListing } from '../helpers/listings.ts';
import { serveExampleSite, type TestSite } from '../helpers/site.ts';
import { linkIn, mailsTo } from '../helpers/web.ts';
import { seriousViolations } from '../helpers/axe.ts';

// A founder without an API key does everything in the browser: sign up, confirm,
// draft from the website, edit a drafted field, submit, then (once live) edit the headline on two
// sites with apply_to, post an update and add a milestone; at desktop width and at 390 px, with
// axe-core on every owner page on the way.

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
// One website (one company) per journey: a loopback port is a company of its own.
let sites: TestSite[] = [];

test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  await env.startWorkers();
  sites = [await serveExampleSite(), await serveExampleSite()];
});
test.after.always(async () => {
  await Promise.all(sites.map((s) => s.close()));
  await close?.();
});

const PASSWORD = 'owner home password';
const db = () => env.services.db;

/** No serious or critical axe-core violation on the page as it is now. */
async function noSeriousViolations(t: ExecutionContext, page: Page, what: string): Promise<void> {
  t.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
}

/** The page fits the width: nothing scrolls sideways. */
async function fits(t: ExecutionContext, page: Page, width: number | null, what: string): Promise<void> {
  if (width === null) return;
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  // On failure, name the elements that reach past the edge.
  const wide = await page.evaluate(
    (w) =>
      [...document.querySelectorAll('main *')]
        .filter((e) => e.getBoundingClientRect().right > w)
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${e.className}`)
        .slice(0, 5),
    width,
  );
  t.true(scrollWidth <= width, `${what} is ${scrollWidth} px wide at ${width} px: ${wide.join(', ')}`);
}

async function journey(t: ExecutionContext, email: string, site: TestSite, width: number | null): Promise<void> {
  const context = await browser.newContext({ baseURL: env.baseUrl, ...(width ? { viewport: { width, height: 844 } } : {}) });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|error/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  const check = async (what: string) => {
    await noSeriousViolations(t, page, what);
    await fits(t, page, width, what);
  };

  // Sign up, confirm through the development mailbox, sign in.
  await page.goto('/signup');
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your email' }).waitFor();
  const [mail] = await mailsTo(db(), email);
  await page.goto(new URL(linkIn(mail!, '/verify-email')).pathname + new URL(linkIn(mail!, '/verify-email')).search);
  await page.waitForURL(/\/signin\?notice=verified$/);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/account$/);
  const user = (await db()('users').where({ email }).first('id'))!;

  // Draft from the website; the review shows each field with where it was found.
  await page.getByRole('link', { name: 'Your listings' }).first().click();
  await check('the listings page');
  await page.getByLabel('Website address').fill(site.url);
  await page.getByRole('button', { name: 'Draft my listing' }).click();
  await page.getByText('Your draft is ready for you to review.').waitFor({ timeout: 60_000 });
  await check('the draft review');
  const headline = page.getByLabel('Headline');
  t.regex(await headline.inputValue(), /Invoicing for small studios/);
  t.regex((await page.locator('#f-headline-hint').textContent())!, /^.*Found on 127\.0\.0\.1:\d+.*:/s);

  // Edit a drafted field in place, save, then submit.
  await headline.fill('Invoices for small studios, sent in a minute');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Your changes to the draft are saved.').waitFor();
  t.is(await page.getByLabel('Headline').inputValue(), 'Invoices for small studios, sent in a minute');
  await page.getByRole('button', { name: 'Submit listing' }).click();
  await page.waitForURL(/\/account\/listings\/\d+\?notice=draft-submitted$/);
  const listingId = Number(/\/account\/listings\/(\d+)/.exec(page.url())![1]);
  const listing = (await db()('listings').where({ id: listingId }).first())!;
  t.is(listing.owner_id, user.id);
  t.is(listing.headline, 'Invoices for small studios, sent in a minute');
  t.is(await page.locator('[data-field=state]').textContent(), 'Your listing is submitted but not launched yet.');
  t.is(await page.locator('[data-field=action] a').textContent(), 'Choose how to launch');
  t.is(await page.getByRole('link', { name: 'Launch now or pick a week' }).getAttribute('href'), `/account/listings/${listingId}/promote`);
  t.is(await page.getByRole('link', { name: 'Orders' }).getAttribute('href'), `/account/orders?listing=${listingId}`);
  await check('the listing’s home (submitted)');
  await page.getByRole('link', { name: 'Launch panel' }).click();
  await check('the launch panel');
  await page.getByRole('link', { name: /^Back to / }).click();
  await page.waitForURL(new RegExp(`/account/listings/${listingId}$`));

  // The listing goes live (as its launch week's start does), and the owner lists the company on Makers Weekly too.
  await db()('listings')
    .where({ id: listingId })
    .update({ status: 'live', plan: 'free', launch_week: isoWeekStart(new Date()), live_at: db().fn.now() });
  const twin = await insertDraftListing(db(), {
    name: 'Quillstone Makers',
    site: 'makers',
    ownerId: user.id,
    url: site.url,
    headline: 'Old',
  });
  await page.reload();
  t.is(await page.locator('[data-field=state]').textContent(), 'Your listing is live on the site.');
  t.regex((await page.locator('[data-field=launch-week]').textContent())!, /^Week \d{1,2} · \d{1,2}/);
  t.is(await page.getByRole('link', { name: 'Promote' }).getAttribute('href'), `/account/listings/${listingId}/promote`);
  await check('the listing’s home (live)');

  // Edit the headline of the live listing, here and on Makers Weekly.
  await page.getByRole('link', { name: 'Edit the listing' }).click();
  await page.waitForURL(new RegExp(`/account/listings/${listingId}/edit$`));
  await check('the edit page');
  t.regex((await page.locator('#f-name-hint').textContent())!, /Found on/);
  await page.getByLabel('Headline').fill('Invoices for studios, sent in a minute');
  await page.getByRole('checkbox', { name: 'Makers Weekly' }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('[data-saved]').waitFor();
  const saved = page.locator('[data-saved]');
  t.regex((await saved.innerText()).replace(/\s+/g, ' '), /Saved\. What changed: Headline: Invoices for (small )?studios/);
  t.is(await saved.locator('[data-change=headline] del').first().textContent(), 'small');
  t.is(await saved.locator('[data-site=makers]').getAttribute('data-applied'), 'updated');
  t.is((await db()('listings').where({ id: twin }).first('headline'))!.headline, 'Invoices for studios, sent in a minute');
  t.is((await db()('listings').where({ id: listingId }).first('headline'))!.headline, 'Invoices for studios, sent in a minute');
  t.is(await page.locator('ol.versions > li').count(), 1);
  await check('the edit page after saving');

  // Post an update.
  await page.getByRole('link', { name: /^Back to / }).click();
  await page.getByRole('link', { name: 'Updates', exact: true }).click();
  await page.waitForURL(new RegExp(`/account/listings/${listingId}/updates$`));
  await check('the updates page');
  await page.getByLabel('Title').fill('Recurring invoices');
  await page.getByLabel('What is new').fill('Invoices can repeat every month now.\n\nSet it once.');
  await page.getByRole('button', { name: 'Post update' }).click();
  await page.getByText('Your update is posted.').waitFor();
  t.is(await page.locator('[data-update] h3').textContent(), 'Recurring invoices');
  t.is((await db()('listing_updates').where({ listing_id: listingId })).length, 1);
  await check('the updates page after posting');

  // Add a milestone.
  await page.getByRole('link', { name: /^Back to / }).click();
  await page.getByRole('link', { name: 'Milestones', exact: true }).click();
  await check('the milestones page');
  // The date picker is filled directly; the title is typed from the keyboard and Enter sends the form.
  await page.getByLabel('Date').fill('2026-03-14');
  await page.getByLabel('Title').focus();
  await page.keyboard.type('First paying studio');
  await page.keyboard.press('Enter');
  await page.getByText('The milestone is added.').waitFor();
  t.regex(await page.locator('[data-milestone]').innerText(), /2026-03-14 First paying studio/);
  await check('the milestones page after adding');

  // The story editor is one link away, and links back.
  await page.getByRole('link', { name: /^Back to / }).click();
  await page.getByRole('link', { name: 'Founder story' }).click();
  await page.waitForURL(new RegExp(`/account/listings/${listingId}/story$`));
  await check('the story editor');
  t.deepEqual(problems, []);
}

test.serial('a founder without an API key: sign-up to a live listing edited on two sites, an update and a milestone', async (t) => {
  await journey(t, 'founder-home@example.com', sites[0]!, null);
});

test.serial('the same journey at 390 px: no page scrolls sideways', async (t) => {
  await journey(t, 'founder-narrow@example.com', sites[1]!, 390);
});
