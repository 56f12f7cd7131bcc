import test from 'ava';
import { SHARE_SCRIPT } from '../../src/web/share-control.ts';
import type { Browser, Page } from 'playwright-core';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { imageBytes, ownedListing, words } from '../helpers/founders.ts';

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

const PASSWORD = 'owner content password';
const HOSTILE = '<script>alert("owned")</script>';

/** A signed-in browser page of a new verified owner with one live listing and an API key. */
async function signedInOwner(email: string) {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  const { key } = await createApiKey(env.services.db, user.id, 'test', ['account:read', 'listings:write']);
  const listing = await ownedListing(env, user.id, 'Rocket Co');
  const context = await browser.newContext({ baseURL: env.baseUrl });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|error/i.test(m.text())) problems.push(m.text());
  });
  // Escaped text never runs: any dialog is a failure.
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await signInOnPage(page, email, PASSWORD);
  return { user, key, listing, page, context, problems };
}

const missingCodes = (page: Page) => page.locator('.missing li').evaluateAll((items) => items.map((li) => li.getAttribute('data-code')));

test('profile with a photo, a story written until it publishes, the public pages, escaped', async (t) => {
  const { user, key, listing, page, context, problems } = await signedInOwner('ada@example.com');

  // The founder profile starts empty and says what it needs.
  await page.goto('/account/founder-profile');
  t.is(await page.locator('[data-status]').getAttribute('data-status'), 'incomplete');
  t.deepEqual(await missingCodes(page), ['founder_profile_missing']);

  const bio = `I build rockets ${HOSTILE} & fly them.\n\n${words(25, 'bio')}`;
  await page.getByLabel('Display name').fill(`Ada ${HOSTILE}`);
  await page.getByLabel('Bio').fill(bio);
  await page.getByLabel('Links').fill('https://ada.example.com/\nhttps://github.com/ada');
  await page.getByRole('button', { name: 'Save profile' }).click();
  await page.getByText('Your founder profile is saved.').waitFor();
  t.deepEqual(await missingCodes(page), ['photo_missing']);

  // A text file named like an image is refused by its content.
  const photoInput = page.getByLabel('Your photo');
  await photoInput.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: Buffer.from('not really a picture') });
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.locator('#f-photo-error').waitFor();
  t.regex(await page.locator('#f-photo-error').innerText(), /not an image we accept/);
  t.is(await env.services.db('founder_photos').where({ user_id: user.id }).first(), undefined);

  await page.getByLabel('Your photo').setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: await imageBytes('jpeg', 640, 480) });
  await page.getByRole('button', { name: 'Upload photo' }).click();
  await page.getByText('Your photo is saved.').waitFor();
  t.is(await page.locator('[data-status]').getAttribute('data-status'), 'complete');
  const stored = await env.services.db('founder_photos').where({ user_id: user.id }).first('width', 'height', 'source_format');
  t.deepEqual(stored, { width: 512, height: 512, source_format: 'jpeg' });
  t.true(await page.locator('img.founder-photo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 512));

  const question = (await api(env, 'GET', '/interview-questions')).body.items[0];
  await page.getByLabel(question.text).fill(`Rockets for everyone ${HOSTILE}`);
  await page.getByRole('button', { name: 'Save answers' }).click();
  await page.getByText('Your interview answers are saved.').waitFor();

  // The story editor, from the profile page: too short first, then enough to publish.
  await page.getByRole('link', { name: 'edit the founder story' }).click();
  await page.waitForURL(new RegExp(`/account/listings/${listing.id}/story$`));
  t.is(await page.locator('[data-status]').getAttribute('data-status'), 'draft');
  await page.getByLabel('Title').fill(`Why we fly ${HOSTILE}`);
  await page.getByLabel('How it started').fill(`${words(60, 'start')}\n\nA second paragraph ${HOSTILE}.`);
  await page.getByRole('button', { name: 'Save story' }).click();
  await page.getByText('Your story is saved as a draft.').waitFor();
  t.deepEqual(await missingCodes(page), ['story_too_few_words', 'story_too_few_sections']);
  await page.getByLabel('The problem').fill(words(130, 'problem'));
  await page.getByLabel('What we built').fill(words(130, 'built'));
  await page.getByRole('button', { name: 'Save story' }).click();
  await page.getByText('Your story is saved and published.').waitFor();
  t.is(await page.locator('[data-status]').getAttribute('data-status'), 'published');
  t.is(await page.locator('.missing').count(), 0);

  // The public story page: escaped title and paragraphs, the founder linking to their page.
  await page.getByRole('link', { name: 'read it on its public page' }).click();
  await page.waitForURL(new RegExp(`/stories/${listing.slug}$`));
  t.is(await page.getByRole('heading', { level: 1 }).innerText(), `Why we fly ${HOSTILE}`);
  t.is(await page.locator('#story-how_started ~ p').nth(1).innerText(), `A second paragraph ${HOSTILE}.`);
  t.deepEqual(await page.locator('article h2').allInnerTexts(), ['How it started', 'The problem', 'What we built']);
  t.true(await page.locator('img.founder-photo').evaluate((img: HTMLImageElement) => img.naturalWidth > 0));
  t.is(await page.locator('script').count(), 0);

  await page.getByRole('link', { name: `Ada ${HOSTILE}` }).click();
  await page.waitForURL(new RegExp(`/founders/${user.id}$`));
  t.is(await page.getByRole('heading', { level: 1 }).innerText(), `Ada ${HOSTILE}`);
  t.is(await page.locator('.bio p').first().innerText(), `I build rockets ${HOSTILE} & fly them.`);
  t.true(await page.getByText(`Rockets for everyone ${HOSTILE}`).isVisible());
  t.is(await page.getByRole('link', { name: 'github.com/ada' }).getAttribute('href'), 'https://github.com/ada');
  t.true(await page.getByRole('link', { name: `Why we fly ${HOSTILE}` }).isVisible());
  // The page's one script is its share control's (hashed in the CSP); nothing the founder wrote runs.
  t.deepEqual(await page.locator('script').allTextContents(), [SHARE_SCRIPT]);

  // The latest-updates page shows a posted update, escaped, linking to the listing page.
  const posted = await api(env, 'POST', `/me/listings/${listing.id}/updates`, {
    key,
    body: { title: `v2 ${HOSTILE}`, body: 'Faster.\n\nCheaper.' },
  });
  t.is(posted.status, 201);
  await page.goto('/updates');
  const item = page.locator('ol.feed > li').first();
  t.is(await item.getByRole('heading').innerText(), `v2 ${HOSTILE}`);
  t.deepEqual(await item.locator('p:not(.muted)').allInnerTexts(), ['Faster.', 'Cheaper.']);
  await item.getByRole('link', { name: /Rocket Co/ }).click();
  await page.waitForURL(new RegExp(`/listings/${listing.slug}$`));
  t.regex(await page.getByRole('heading', { level: 1 }).innerText(), /^Rocket Co/);

  t.deepEqual(problems, []);
  await context.close();
});

test('signed out, the editors send you to sign in and back', async (t) => {
  const context = await browser.newContext({ baseURL: env.baseUrl });
  const page = await context.newPage();
  await page.goto('/account/founder-profile');
  t.regex(page.url(), /\/signin\?return_to=%2Faccount%2Ffounder-profile$/);
  await context.close();
});
