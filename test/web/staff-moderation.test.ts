import { randomBytes } from 'node:crypto';
import test from 'ava';
import { consolePerson, STAFF_PASSWORD, verifyFactor } from '../helpers/staff-cast.ts';
import type { Browser, Page } from 'playwright-core';
import { createApiKey } from '../../src/auth/api-keys.ts';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { axeClean } from '../helpers/axe.ts';
import { fitsWidth, signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// The moderation page in Chromium at 1280 px and 390 px, axe on each state: a moderator reads an
// edit as Before/After, reverts it, is told a superseded edit cannot be reverted, and unlists a
// listing with a reason its owner then reads on their listing page. Support gets the 403 page.

const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {}, { clock }));
});
test.after.always(() => close?.());

const db = () => env.services.db;
const person = (roles: StaffRole[]) => consolePerson(env, clock, roles);
const unique = () => randomBytes(4).toString('hex');
const PASSWORD = STAFF_PASSWORD;

async function signedInWithFactor(page: Page, who: { userId: number; email: string }) {
  await signInOnPage(page, who.email, PASSWORD);
  await verifyFactor(env, clock, who.userId);
}

for (const [label, viewport] of [
  ['1280 px', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(`${label}: a moderator reverts an edit from its diff, is refused a superseded one, and unlists a listing`, async (t) => {
    const owner = await person([]);
    const { key: ownerKey } = await createApiKey(db(), owner.userId, 'owner', ['listings:write']);
    const name = `Diffed ${unique()}`;
    const id = await insertLiveListing(db(), {
      name,
      url: `https://d-${unique()}.example/`,
      ownerId: owner.userId,
      headline: 'Honest tools for teams',
    });
    const patch = (fields: Record<string, unknown>) => api(env, 'PATCH', `/me/listings/${id}`, { key: ownerKey, body: { fields } });
    t.is((await patch({ headline: 'Cheap pills for teams' })).status, 200);
    const spam = (await db()('listing_versions').where({ listing_id: id }).orderBy('id', 'desc').first('id'))!.id;

    const moderator = await person(['moderator']);
    const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
    const page = await context.newPage();
    await signedInWithFactor(page, moderator);
    await page.goto('/staff/moderation');
    const article = page.locator(`article[data-edit="${spam}"]`);
    const headline = article.locator('[data-change="headline"]');
    // Changed words are marked by element and in words, not by colour alone.
    t.regex((await headline.locator('[data-before]').textContent())!, /^\[removed: Honest\] \[removed: tools\] for teams$/);
    t.regex((await headline.locator('[data-after]').textContent())!, /^\[added: Cheap\] \[added: pills\] for teams$/);
    t.true((await headline.locator('[data-before] del').count()) > 0 && (await headline.locator('[data-after] ins').count()) > 0);
    t.true(await page.getByRole('heading', { name: 'Reports and held comments' }).isVisible());
    t.true(await fitsWidth(page), 'the page fits the screen');
    await axeClean(t, page, '/staff/moderation with edits');

    await article.getByRole('button', { name: /Revert this edit/ }).click();
    await page.waitForURL(/reverted=/);
    t.regex(await page.locator('main').innerText(), new RegExp(`Edit ${spam} is reverted`));
    t.is((await db()('listings').where({ id }).first('headline'))!.headline, 'Honest tools for teams');
    await axeClean(t, page, '/staff/moderation after a revert');

    // The same edit again: the revert changed its field since, and the page says which edit did.
    await page
      .locator(`article[data-edit="${spam}"]`)
      .getByRole('button', { name: /Revert this edit/ })
      .click();
    t.regex(await page.getByRole('alert').innerText(), /cannot be reverted: a later edit changed the same fields: edit \d+ \(headline\)/);
    await axeClean(t, page, '/staff/moderation with a refusal');

    await page.goto(`/staff/moderation?q=${encodeURIComponent(name)}`);
    const row = page.locator('table[data-listings="found"] tr[data-listing]');
    await row.getByLabel('Why unlist it').fill('Sells fake medicine.');
    await row.getByRole('button', { name: /Unlist/ }).click();
    await page.waitForURL(/unlisted=/);
    const unlisted = page.locator('table[data-listings="unlisted"] tr[data-listing]').filter({ hasText: name });
    t.is(await unlisted.locator('[data-unlisted-reason]').innerText(), 'Sells fake medicine.');
    t.true(await fitsWidth(page), 'the page fits the screen with a listing');
    await axeClean(t, page, '/staff/moderation with an unlisted listing');
    const slug = (await db()('listings').where({ id }).first('slug'))!.slug;
    t.is((await fetch(`${env.baseUrl}/listings/${slug}`)).status, 404);
    await context.close();

    // The owner reads why on their listing page.
    const ownerContext = await browser.newContext({ baseURL: env.baseUrl, viewport });
    const ownerPage = await ownerContext.newPage();
    await signInOnPage(ownerPage, owner.email, PASSWORD);
    await ownerPage.goto(`/account/listings/${id}`);
    t.regex(await ownerPage.locator('[data-field="state"]').innerText(), /The site team unlisted your listing: Sells fake medicine\./);
    await ownerContext.close();
  });
}

test.serial('support and people without a staff role cannot moderate', async (t) => {
  const support = await person(['support']);
  const context = await browser.newContext({ baseURL: env.baseUrl });
  const page = await context.newPage();
  await signedInWithFactor(page, support);
  const res = await page.goto('/staff/moderation');
  t.is(res?.status(), 403);
  await context.close();
});
