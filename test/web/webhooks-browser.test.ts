import test, { type ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv, signInOnPage } from '../helpers/browser.ts';
import { api, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

/** /account/webhooks in Chromium at 390 px: add (secret shown once), deliveries, send again, off, new secret, delete; axe on each state. */

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { WORKFLOW_START_SWEEP_MS: '100' }));
  await env.startWorkers();
});
test.after.always(async () => {
  await close?.();
});

const PASSWORD = 'webhooks browser password';

async function checkPage(t: ExecutionContext, page: Page, what: string) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  t.true(overflow <= 0, `${what}: no sideways scroll at 390 px (${overflow} px too wide)`);
}

test('an owner adds an endpoint, copies the secret once, sees deliveries, sends one again, turns it off, renews the secret and deletes it', async (t) => {
  t.timeout(120_000);
  const receiver = await startReceiver(() => 200);
  t.teardown(() => receiver.close());
  const db = env.services.db;
  const email = `hooks-${Date.now()}@example.com`;
  const user = await createVerifiedUser(db, email, PASSWORD);
  const listingId = await insertLiveListing(db, { name: 'Browser Badgers', ownerId: user.id, url: 'https://browser-badgers.example/' });
  const { key } = await createApiKey(db, user.id, 'poster', ['listings:write', 'account:read']);

  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  await page.getByText('No endpoints yet.').waitFor();
  await checkPage(t, page, 'the empty page');

  // No event chosen: a sentence beside the events, the address kept.
  await page.getByLabel('Address').fill(receiver.url);
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.locator('#f-events-error').getByText('Choose at least one event.').waitFor();
  t.is(await page.getByLabel('Address').inputValue(), receiver.url);
  await checkPage(t, page, 'the form with an error');

  await page.getByLabel('Description (optional)').fill('Our CRM bridge');
  await page.getByLabel('You posted an update on a listing').check();
  await page.getByLabel('An order was paid').check();
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByRole('heading', { name: 'The endpoint’s signing secret' }).waitFor();
  const secret = (await page.locator('#new-secret').textContent())!;
  t.regex(secret, /^whsec_/);
  await checkPage(t, page, 'the page showing the secret');
  await page.reload();
  t.is(await page.locator('#new-secret').count(), 0, 'the secret is shown once');
  const section = page.locator('section.endpoint', { has: page.getByRole('heading', { name: 'Our CRM bridge' }) });
  await section.getByText('On.', { exact: true }).waitFor();
  await section.getByText('Nothing sent yet.').waitFor();

  t.is((await api(env, 'POST', `/me/listings/${listingId}/updates`, { key, body: { title: 'Shipped', body: 'New things.' } })).status, 201);
  await eventually('the delivery', () => receiver.received.some((r) => r.answered === 200));
  t.is(
    (new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>) as { type: string })
      .type,
    'update.published',
  );
  await eventually('the delivery recorded', async () => (await db('webhook_deliveries').where({ status: 'succeeded' }).first()) ?? null);
  await page.reload();
  const row = section.locator('tr[data-delivery-id]');
  await row.getByText('Delivered.').waitFor();
  t.true((await row.textContent())!.includes('status 200'));
  await checkPage(t, page, 'the page with a delivery');

  await row.getByRole('button', { name: 'Send again: You posted an update on a listing' }).click();
  await page.getByText('We are sending that event again now.').waitFor();
  await eventually('the second delivery', () => receiver.received.length === 2);
  t.is(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);

  await section.getByRole('button', { name: 'Turn off Our CRM bridge' }).click();
  await page.getByText('The endpoint is off').waitFor();
  await section.getByText('Off: you turned it off.').waitFor();
  await section.getByText('Turn the endpoint on to send again').waitFor();
  await checkPage(t, page, 'an endpoint turned off');
  await section.getByRole('button', { name: 'Turn on Our CRM bridge' }).click();
  await section.getByText('On.', { exact: true }).waitFor();

  // Keyboard: the new-secret button is reachable and works from the keyboard.
  await section.getByRole('button', { name: 'New secret for Our CRM bridge' }).focus();
  await page.keyboard.press('Enter');
  const renewed = (await page.locator('#new-secret').textContent())!;
  t.regex(renewed, /^whsec_/);
  t.not(renewed, secret);

  await section.getByRole('link', { name: 'Delete Our CRM bridge' }).click();
  await page.getByRole('heading', { name: 'Delete this webhook endpoint?' }).waitFor();
  await checkPage(t, page, 'the delete confirmation');
  await page.getByRole('button', { name: 'Delete endpoint' }).click();
  await page.getByText('The endpoint is deleted.').waitFor();
  await page.getByText('No endpoints yet.').waitFor();
  t.is(Number((await db('webhook_endpoints').where({ user_id: user.id }).count({ n: '*' }))[0]!.n), 0);
  await context.close();
});

test('someone else’s endpoint: every action is a not-found page, nothing changes', async (t) => {
  const db = env.services.db;
  const owner = await env.user();
  const created = await api(env, 'POST', '/me/webhooks', { key: owner.key, body: { url: 'http://127.0.0.1:9/x', events: ['order.paid'] } });
  const email = `stranger-${Date.now()}@example.com`;
  await createVerifiedUser(db, email, PASSWORD);
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  const res = await page.goto(`/account/webhooks/${created.body.id}/delete`);
  t.is(res!.status(), 404);
  await checkPage(t, page, 'the not-found page');
  t.true((await db('webhook_endpoints').where({ id: created.body.id }).first())!.enabled);
  await context.close();
});
