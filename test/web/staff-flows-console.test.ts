import test from 'ava';
import { consolePerson, STAFF_PASSWORD, verifyFactor } from '../helpers/staff-cast.ts';
import type { Browser } from 'playwright-core';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { axeClean } from '../helpers/axe.ts';
import { fitsWidth, signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { stuckOrder, waitForOrder } from '../helpers/orders.ts';
import { WebClient } from '../helpers/web.ts';

// Stuck work in the console's browser pages: support sees a stuck order as a card on /staff/flows
// (why, the fix, Retry, the Temporal UI link), opens the order (its workflow's state, the mails
// sent, "Replay this order"), replays it after the fault is fixed, and it is fulfilled; at 390 px
// and 1280 px with axe on each page. A moderator reaches neither page, and a forced replay is refused.

const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, { ORDER_FULFIL_MAX_ATTEMPTS: '1' }, { clock }));
  await env.startWorkers();
});
test.after.always(() => close?.());

const db = () => env.services.db;
const person = (roles: StaffRole[]) => consolePerson(env, clock, roles);
const withFactor = (userId: number) => verifyFactor(env, clock, userId);
const PASSWORD = STAFF_PASSWORD;

for (const [label, viewport] of [
  ['1280 px', { width: 1280, height: 800 }],
  ['390 px', { width: 390, height: 844 }],
] as const) {
  test.serial(`${label}: support sees a stuck order on Stuck work, opens it, replays it after the fix, and it is fulfilled`, async (t) => {
    const order = await stuckOrder(env, isoWeekStart(clock.now()));
    t.teardown(order.fix);
    const support = await person(['support']);
    const context = await browser.newContext({ baseURL: env.baseUrl, viewport });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await signInOnPage(page, support.email, PASSWORD);
    await withFactor(support.userId);

    await page.goto('/staff');
    await page.getByRole('link', { name: 'See background work that is stuck and retry it' }).click();
    await page.waitForURL(/\/staff\/flows$/);
    const card = page.locator(`li[data-stuck="order:${order.number}"]`);
    await card.waitFor();
    t.regex(await card.locator('[data-cause]').innerText(), /read-only for maintenance/);
    t.regex(await card.locator('[data-fix]').innerText(), /Fix what the reason names, then replay the order/);
    t.is(await card.getByRole('button', { name: 'Retry' }).count(), 1);
    t.regex(
      (await card.getByRole('link', { name: /in the Temporal UI/ }).getAttribute('href')) ?? '',
      new RegExp(`/workflows/order%3A${order.number}$`),
    );
    t.true(await fitsWidth(page), 'the stuck list fits the screen');
    await axeClean(t, page);

    await card.getByRole('link', { name: `Order ${order.number}` }).click();
    await page.waitForURL(new RegExp(`/staff/orders/${order.number}$`));
    t.truthy(await page.locator('[data-workflow-state]').getAttribute('data-workflow-state'));
    t.regex(await page.locator('[data-mails]').innerText(), new RegExp(`Receipt for order ${order.number}`));
    t.is(await page.getByRole('button', { name: 'Replay this order' }).count(), 1);
    t.true(await fitsWidth(page), 'the order page fits the screen');
    await axeClean(t, page);

    await order.fix();
    await page.getByRole('button', { name: 'Replay this order' }).click();
    await page.waitForURL(/replayed=1/);
    t.regex(await page.locator('.notice').innerText(), /The order is replayed/);
    await axeClean(t, page);
    await waitForOrder(env, order.buyer.key, order.number, ['fulfilled']);
    await page.reload();
    t.is(await page.locator('[data-order-status]').getAttribute('data-order-status'), 'fulfilled');
    t.is(await page.getByRole('button', { name: 'Replay this order' }).count(), 0, 'a fulfilled order offers no replay');
    const row = await db()('staff_audit').where({ operation: 'staff_replay_order', target_id: order.number }).first();
    t.like(row, { user_id: support.userId, role: 'support', factor: 'totp' });

    await page.goto('/staff/flows');
    t.is(await page.locator(`li[data-stuck="order:${order.number}"]`).count(), 0, 'the replayed order left the list');
    await axeClean(t, page);
  });
}

test.serial('a moderator reaches neither stuck work nor the order page; a forced replay or retry is refused', async (t) => {
  const order = await stuckOrder(env, isoWeekStart(clock.now()));
  t.teardown(order.fix);
  const moderator = await person(['moderator']);
  const web = new WebClient(env.baseUrl);
  await web.signIn(moderator.email, PASSWORD);
  await withFactor(moderator.userId);
  t.is((await web.get('/staff/flows')).status, 403);
  t.is((await web.get(`/staff/orders/${order.number}`)).status, 403);
  const _csrf = await web.csrfFrom('/account');
  t.is((await web.post(`/staff/orders/${order.number}/replay`, { _csrf })).status, 403);
  t.is((await web.post(`/staff/flows/order/${order.number}/retry`, { _csrf })).status, 403);
  t.is(
    await db()('staff_audit').where({ target_id: order.number }).whereIn('operation', ['staff_replay_order', 'staff_retry_flow']).first(),
    undefined,
  );
  t.is((await db()('orders').where({ number: order.number }).first('status'))!.status, 'attention');
});
