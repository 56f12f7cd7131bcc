import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import { seasonedAccount } from '../helpers/comments.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

/**
 * The discussion of a listing in Chromium at 390 px without JavaScript: visitors read it from
 * the kept page, a visitor asks through the form, the maker replies through the reply form, and
 * the visitors' kept page shows both at once. axe finds nothing serious either way.
 */

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
// Kept pages on, as in production: a post must clear the listing's copy.
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { PAGE_CACHE_TTL_MS: '600000' })));
test.after.always(() => close?.());

const PASSWORD = 'discussion password';

async function account(email: string): Promise<number> {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  await seasonedAccount(env.services.db, user.id);
  return user.id;
}

async function phonePage(javaScriptEnabled = false): Promise<Page> {
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 }, javaScriptEnabled });
  context.setDefaultTimeout(10_000);
  return context.newPage();
}

/** axe's serious findings on the page as `page`'s person sees it now (axe runs in the page: a twin context with JavaScript). */
async function audit(page: Page): Promise<string[]> {
  const twin = await browser.newContext({
    baseURL: env.baseUrl,
    viewport: { width: 390, height: 844 },
    storageState: await page.context().storageState(),
  });
  try {
    const copy = await twin.newPage();
    await copy.goto(page.url());
    return await seriousViolations(copy);
  } finally {
    await twin.close();
  }
}

test('a visitor asks, the maker replies, without JavaScript at 390 px', async (t) => {
  const db = env.services.db;
  const makerId = await account('maker-talk@example.com');
  const askerId = await account('asker-talk@example.com');
  const listingId = await insertLiveListing(db, { name: 'Chatty App', ownerId: makerId, url: 'https://chatty.example.com/' });
  // A comment already there, posted by an agent with the person's key.
  const early = await env.user();
  await seasonedAccount(db, early.userId);
  const first = await api(env, 'POST', `/listings/${listingId}/comments`, {
    key: early.key,
    body: { body: 'Is there an API?\nDocs: https://chatty.example.com/docs' },
  });
  t.is(first.status, 201);

  const visitor = await phonePage();
  await visitor.goto('/listings/chatty-app');
  const discussion = visitor.locator('#discussion');
  t.is(await discussion.locator('[data-comment-count]').textContent(), '1');
  const link = discussion.getByRole('link', { name: 'https://chatty.example.com/docs' });
  t.is(await link.getAttribute('rel'), 'nofollow ugc noopener');
  t.true(await discussion.getByRole('link', { name: 'Sign in to join the discussion' }).isVisible());
  const jsonLd = await visitor.locator('script[type="application/ld+json"]').allTextContents();
  const forum = jsonLd.map((s) => JSON.parse(s)).find((d) => d['@type'] === 'DiscussionForumPosting');
  t.like(forum, { commentCount: 1, comment: [{ '@type': 'Comment', text: 'Is there an API?\nDocs: https://chatty.example.com/docs' }] });
  t.deepEqual(await audit(visitor), []);
  // Kept for visitors from now on.
  await visitor.reload();

  const asker = await phonePage();
  await signInOnPage(asker, 'asker-talk@example.com', PASSWORD);
  await asker.goto('/listings/chatty-app');
  await asker.getByLabel('Add a comment').fill('Does it work offline?\n\nWe travel a lot.');
  await asker.getByRole('button', { name: 'Post comment' }).click();
  await asker.waitForURL(/notice=commented#comment-\d+$/);
  t.true(await asker.getByText('Your comment is posted.').isVisible());
  const asked = await db('comments').where({ user_id: askerId }).first('id');
  const mine = asker.locator(`#comment-${asked!.id}`);
  t.is(await mine.locator('article p').nth(1).innerHTML(), 'Does it work offline?');
  t.true(await mine.getByRole('button', { name: `Delete comment ${asked!.id}` }).isVisible());
  t.deepEqual(await audit(asker), []);

  const maker = await phonePage();
  await signInOnPage(maker, 'maker-talk@example.com', PASSWORD);
  await maker.goto('/listings/chatty-app');
  const question = maker.locator(`#comment-${asked!.id}`);
  await question.getByText(`Reply comment ${asked!.id}`).click();
  await question.getByLabel('Your reply').fill('Yes: everything works offline and syncs later.');
  await question.getByRole('button', { name: 'Post reply' }).click();
  await maker.waitForURL(/notice=commented#comment-\d+$/);
  const reply = maker.locator(`#comment-${asked!.id} .replies .comment`);
  t.is(await reply.count(), 1);
  t.true(await reply.getByText('Maker', { exact: true }).isVisible());
  // The maker upvotes the question.
  await question.getByRole('button', { name: `Upvote comment ${asked!.id}` }).click();
  await maker.waitForURL(/notice=comment-voted/);
  t.is(await maker.locator(`#comment-${asked!.id} [data-comment-votes]`).first().textContent(), '1');
  t.deepEqual(await audit(maker), []);

  // The visitors' kept copy was forgotten: they see the question and the answer at once.
  await visitor.goto('/listings/chatty-app');
  t.is(await visitor.locator('[data-comment-count]').textContent(), '3');
  t.true(await visitor.getByText('Yes: everything works offline and syncs later.').isVisible());
  t.is(await visitor.locator('#discussion form').count(), 0);

  // A refused post comes back with its reason beside the field (axe runs on that page, so with JavaScript).
  const refused = await (
    await browser.newContext({
      baseURL: env.baseUrl,
      viewport: { width: 390, height: 844 },
      storageState: await asker.context().storageState(),
    })
  ).newPage();
  await refused.goto('/listings/chatty-app');
  await refused.getByLabel('Add a comment').fill('a https://a.example/ b https://b.example/ c https://c.example/ d https://d.example/');
  await refused.getByRole('button', { name: 'Post comment' }).click();
  await refused.waitForURL(/\/listings\/chatty-app#discussion$/);
  t.regex((await refused.locator('#new-comment-error').textContent()) ?? '', /at most 3/);
  t.is(await refused.getByLabel('Add a comment').getAttribute('aria-invalid'), 'true');
  t.deepEqual(await seriousViolations(refused), []);
});

test('a new account sees its comment waiting for review; visitors do not', async (t) => {
  const db = env.services.db;
  const makerId = await account('maker-held@example.com');
  await insertLiveListing(db, { name: 'Held App', ownerId: makerId, url: 'https://held.example.com/' });
  await createVerifiedUser(db, 'newcomer@example.com', PASSWORD);
  const page = await phonePage();
  await signInOnPage(page, 'newcomer@example.com', PASSWORD);
  await page.goto('/listings/held-app');
  await page.getByLabel('Add a comment').fill('Hello from a brand new account');
  await page.getByRole('button', { name: 'Post comment' }).click();
  await page.waitForURL(/notice=comment-held/);
  t.true(await page.getByText('Waiting for review: only you can see this comment').isVisible());
  const visitor = await phonePage();
  await visitor.goto('/listings/held-app');
  t.is(await visitor.locator('[data-comment-count]').textContent(), '0');
  t.false(await visitor.getByText('Hello from a brand new account').isVisible());
});
