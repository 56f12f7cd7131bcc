import test from 'ava';
import type { Browser, Page } from 'playwright-core';
import { markSessionFactor } from '../../src/domain/staff/second-factor.ts';
import { rolesOf } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { failingEndpoint, URL_TOKEN } from '../helpers/failing-webhooks.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { STAFF_PASSWORD, staffPerson } from '../helpers/staff-cast.ts';

// The console's webhook health and staff roles in Chromium at 390 px and 1280 px, axe on each page:
// support reads a failing address in sentences and opens it; an admin gives a role with the form
// and takes it back after the confirmation page.

const clock = new ManualClock(new Date('2026-03-12T12:00:00Z')); // a Thursday
let env: TestEnv;
let browser: Browser;
let parity: ReturnType<typeof mcpParity>;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {}, { clock }));
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  await close?.();
});

const db = () => env.services.db;

async function signedIn(userId: number, email: string, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
  const page = await context.newPage();
  await signInOnPage(page, email, STAFF_PASSWORD);
  for (const id of await db()('web_sessions').where({ user_id: userId }).pluck('id_hash')) {
    await markSessionFactor(db(), id, 'totp', clock.now());
  }
  return { context, page };
}

async function checked(t: any, page: Page) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${new URL(page.url()).pathname}`);
  t.true(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${page.url()} fits the screen`);
}

for (const [label, viewport] of [
  ['1280 px', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(`${label}: support reads a failing webhook address in words and opens it`, async (t) => {
    // Failing since Tuesday 10:00, 12 tries.
    const failing = await failingEndpoint(env, parity, { failures: 12, since: new Date('2026-03-10T10:00:00Z') });
    const support = await staffPerson(env, clock, ['support'], []);
    const { context, page } = await signedIn(support.userId, support.email, viewport);
    await page.goto('/staff');
    await page.getByRole('link', { name: 'See owners’ webhook addresses that fail' }).click();
    const item = page.locator(`[data-endpoint="${failing.id}"]`);
    await item.waitFor();
    t.regex(await item.innerText(), /This address has failed 12 times since Tuesday; the last answer was 502 Bad Gateway\./);
    t.regex(await item.innerText(), new RegExp(failing.owner.email));
    t.false((await page.content()).includes(URL_TOKEN), 'the address’s path is not shown');
    await checked(t, page);

    await item.getByRole('link', { name: '127.0.0.1:9' }).click();
    await page.locator('[data-summary]').waitFor();
    t.regex(await page.locator('[data-summary]').innerText(), /failed 12 times since Tuesday/);
    t.is(await page.locator('[data-delivery]').count(), 2);
    t.false((await page.content()).includes(URL_TOKEN));
    t.false((await page.content()).includes(failing.secret));
    await checked(t, page);
    await context.close();
  });

  test.serial(`${label}: an admin gives a role with the form and takes it back after a confirmation`, async (t) => {
    const admin = await staffPerson(env, clock, ['admin'], [], null);
    const target = await staffPerson(env, clock, [], []);
    const { context, page } = await signedIn(admin.userId, admin.email, viewport);
    await page.goto('/staff');
    await page.getByRole('link', { name: 'Give and take back staff roles' }).click();
    await page.getByRole('heading', { name: 'Give a role' }).waitFor();
    await checked(t, page);

    // An unknown email is a sentence beside the form, not an error page.
    await page.getByLabel('Their email').fill('nobody-here@example.com');
    await page.getByRole('button', { name: 'Give the role' }).click();
    await page.locator('.error-summary').waitFor();
    t.regex(await page.locator('.error-summary').innerText(), /No account has the email nobody-here@example.com/);
    await checked(t, page);

    await page.getByLabel('Their email').fill(target.email);
    await page.getByLabel(/^Moderator/).check();
    await page.getByRole('button', { name: 'Give the role' }).click();
    await page.waitForURL(/done=granted/);
    const row = page.locator(`tr[data-member="${target.email}"][data-role="moderator"]`);
    await row.waitFor();
    t.regex(await row.innerText(), new RegExp(`This site[\\s\\S]*by ${admin.email}`));
    t.deepEqual(
      (await rolesOf(db(), target.userId)).map((g) => g.role),
      ['moderator'],
    );
    await checked(t, page);

    await row.getByRole('button', { name: `Take back moderator from ${target.email}` }).click();
    await page.getByRole('button', { name: 'Take the role back' }).waitFor();
    t.deepEqual(
      (await rolesOf(db(), target.userId)).map((g) => g.role),
      ['moderator'],
      'nothing changes before the confirmation',
    );
    await checked(t, page);
    await page.getByRole('button', { name: 'Take the role back' }).click();
    await page.waitForURL(/done=revoked/);
    t.regex(await page.locator('main').innerText(), /is no longer moderator/);
    t.deepEqual(await rolesOf(db(), target.userId), []);
    t.is(await page.locator(`tr[data-member="${target.email}"]`).count(), 0);
    await context.close();
  });
}

test.serial('giving a role asks for the second factor again when it was verified more than 10 minutes ago', async (t) => {
  const admin = await staffPerson(env, clock, ['admin'], [], null);
  const target = await staffPerson(env, clock, [], []);
  const { context, page } = await signedIn(admin.userId, admin.email, { width: 1280, height: 800 });
  await page.goto('/staff/roles');
  clock.advance(11 * 60_000);
  await page.getByLabel('Their email').fill(target.email);
  await page.getByRole('button', { name: 'Give the role' }).click();
  await page.waitForURL(/\/account\/second-factor\?.*again=1/);
  t.deepEqual(await rolesOf(db(), target.userId), [], 'no role without a recent factor');
  await context.close();
});
