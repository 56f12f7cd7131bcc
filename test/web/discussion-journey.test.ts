import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import { seasonedAccount } from '../helpers/comments.ts';
import type { TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mailsTo } from '../helpers/web.ts';

/**
 * A discussion in Chromium, at 390 px and 1280 px: a visitor asks on a listing page, the maker is
 * told (the unread count in the header, the notifications page, one mail after the batch window),
 * replies from the listing page, and the visitor is told in turn. The batch window is a second
 * here (UPDATE_MAIL_WINDOW_SECONDS): the mail workflow waits for it on Temporal's timer.
 */

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { UPDATE_MAIL_WINDOW_SECONDS: '1' }));
  await env.startWorkers();
});
test.after.always(() => close?.());

const PASSWORD = 'discussion journey password';

async function person(email: string): Promise<number> {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  await seasonedAccount(env.services.db, user.id);
  return user.id;
}

async function signedIn(email: string, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  return page;
}

async function checked(
  t: { deepEqual: (a: unknown, b: unknown, m?: string) => void; true: (v: boolean, m?: string) => void },
  page: Page,
  what: string,
) {
  t.deepEqual(await seriousViolations(page), [], `axe: ${what}`);
  t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${what} fits the screen`);
}

for (const [label, viewport] of [
  ['390 px', { width: 390, height: 844 }],
  ['1280 px', { width: 1280, height: 800 }],
] as const) {
  test(`${label}: a visitor asks, the maker is told and replies, the visitor is told`, async (t) => {
    const tag = label.replace(/\D/g, '');
    const makerEmail = `maker-${tag}@example.com`;
    const visitorEmail = `visitor-${tag}@example.com`;
    const makerId = await person(makerEmail);
    await person(visitorEmail);
    const name = `Journey App ${tag}`;
    const listingId = await insertLiveListing(env.services.db, { name, ownerId: makerId, url: `https://journey-${tag}.example.com/` });
    const { slug } = (await env.services.db('listings').where({ id: listingId }).first('slug'))!;

    // The visitor asks.
    const visitor = await signedIn(visitorEmail, viewport);
    await visitor.goto(`/listings/${slug}`);
    await visitor.getByLabel('Add a comment').fill('Can I import my data from a CSV file?');
    await visitor.getByRole('button', { name: 'Post comment' }).click();
    await visitor.waitForURL(/notice=commented/);
    await checked(t, visitor, 'the listing page after asking');

    // The maker sees it in the header and on the notifications page, and gets one mail.
    const maker = await signedIn(makerEmail, viewport);
    await maker.goto('/account/notifications');
    t.is(await maker.locator('header a[data-unread]').getAttribute('data-unread'), '1');
    const told = maker.locator('[data-notification]').first();
    t.regex(await told.innerText(), new RegExp(`${name}`));
    await checked(t, maker, 'the maker’s notifications');
    const makerMail = await eventually('the maker’s mail', async () =>
      (await mailsTo(env.services.db, makerEmail)).find((m) => m.body_text.includes('CSV')),
    );
    const unsubscribe = await env.services.db('mail_outbox').where({ id: makerMail.id }).first('list_unsubscribe');
    t.truthy(unsubscribe?.list_unsubscribe, 'the one-click unsubscribe');

    // The maker replies from the listing page.
    await maker.goto(`/listings/${slug}`);
    const asked = (await env.services.db('comments').where({ listing_id: listingId }).first('id'))!.id;
    const question = maker.locator(`#comment-${asked}`);
    await question.getByText(`Reply comment ${asked}`).click();
    await question.getByLabel('Your reply').fill('Yes: Settings, then Import, takes a CSV of any size.');
    await question.getByRole('button', { name: 'Post reply' }).click();
    await maker.waitForURL(/notice=commented/);
    t.true(await maker.locator(`#comment-${asked} .replies`).getByText('Maker', { exact: true }).isVisible());

    // The visitor is told of the answer: the header, the page, and a mail.
    await visitor.goto('/account/notifications');
    t.is(await visitor.locator('header a[data-unread]').getAttribute('data-unread'), '1');
    t.regex(await visitor.locator('[data-notification]').first().innerText(), /Settings, then Import/);
    await checked(t, visitor, 'the visitor’s notifications');
    await eventually('the visitor’s mail', async () =>
      (await mailsTo(env.services.db, visitorEmail)).find((m) => m.body_text.includes('Settings, then Import')),
    );
  });
}
