import { randomBytes } from 'node:crypto';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { listingLaunchWorkflowId } from '../../src/workflows/contracts/workflow-ids.ts';
import { workflowResult } from '../helpers/workflows.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { inDays, mondayIn, paidOrder } from '../helpers/orders.ts';
import { mailsTo, WebClient } from '../helpers/web.ts';

/**
 * A refund takes back what it paid for: `orders:refund` ends the refunded line's placements,
 * billboard days, unlocked section or not-yet-live paid launch at once, leaves the other lines
 * alone, and the orders page, the refund mail and the `order.refunded` webhook say what ended.
 */

// Refunds read "today" from the services' clock; the billboard test moves it into the booked days.
const clock = new ManualClock(new Date());
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { CATALOG_CACHE_TTL_MS: '0' }, { clock });
  await env.startWorkers();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const PASSWORD = 'refund page password';
const unique = () => randomBytes(4).toString('hex');

/** A signed-in buyer with an API key and a webhook endpoint listening for order.refunded. */
async function buyer() {
  const email = `refund-${unique()}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  const { key } = await createApiKey(db(), user.id, 'test', ['account:read', 'orders:write', 'listings:write']);
  await createEndpoint(env.services, user.id, { url: 'http://127.0.0.1:9/hooks', events: ['order.refunded'] }, true);
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  return { userId: user.id, key, email, client };
}

const listingUrl = (name: string) => `https://${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${unique()}.example/`;
const live = (ownerId: number, name: string) => insertLiveListing(db(), { name, ownerId, url: listingUrl(name) });
const draft = (ownerId: number, name: string) => insertDraftListing(db(), { name, ownerId, url: listingUrl(name) });

/** A paid and fulfilled order of `items`. */
const paid = (key: string, items: unknown[]) => paidOrder(env, key, items);

async function refund(number: string, line?: number) {
  const result = await adminInProcess(env, 'orders:refund', '--number', number, ...(line === undefined ? [] : ['--line', String(line)]));
  if (result.code !== 0) throw new Error(result.stderr);
  return result.stdout;
}

const lineOf = (number: string, position: number) =>
  db()('order_lines as l').join('orders as o', 'o.id', 'l.order_id').where({ 'o.number': number, 'l.position': position }).first('l.*');

/** The order.refunded events of a buyer, oldest first. */
const refundEvents = async (userId: number): Promise<{ data: { refund: any } }[]> =>
  (await db()('webhook_events').where({ user_id: userId, type: 'order.refunded' }).orderBy('id')).map((e) => e.payload as any);

const featuredOnHome = async (name: string) => {
  const home = await new WebClient(env.baseUrl).get('/');
  return home.$('section[aria-labelledby="featured"]').text().includes(name);
};

test.serial('refunding the featured line of a two-line order ends its placements at once; the other line stays', async (t) => {
  const b = await buyer();
  const featured = await live(b.userId, 'Refund Featured');
  const placed = await live(b.userId, 'Refund Placed');
  await db()('listings').where({ id: placed }).update({ categories: [] });
  const number = await paid(b.key, [
    // From this week on, however little of it is left: the strip on `/` shows this week's.
    { product: 'featured', listing_id: featured, options: { weeks: 2, start_week: isoWeekStart(clock.now()) } },
    { product: 'categories', listing_id: placed, options: { categories: ['analytics'] } },
  ]);
  t.true(await featuredOnHome('Refund Featured'));
  t.is((await db()('featured_placements').where({ listing_id: featured })).length, 2);

  const out = await refund(number, 0);
  t.regex(out, /line 0\tfeatured\tended:\n {2}Refund Featured is no longer featured in the weeks of /);
  // The shell refunds through the console's operation: audited as the command line, in the same transaction.
  const audited = await db()('staff_audit').where({ operation: 'staff_refund_order_line', target_id: number });
  t.is(audited.length, 1);
  t.like(audited[0], { user_id: null, role: 'admin', factor: null });
  t.like(audited[0].input, { number, line: 0, reason: 'Refunded from the command line.' });

  t.false(await featuredOnHome('Refund Featured'));
  t.deepEqual(await db()('featured_placements').where({ listing_id: featured }), []);
  t.is((await db()('category_placements').where({ listing_id: placed })).length, 1, 'the other line is untouched');
  const other = await lineOf(number, 1);
  t.is(other.refunded_at, null);
  t.deepEqual(other.ended, []);
  t.is((await db()('orders').where({ number }).first('status'))!.status, 'fulfilled');

  const [event] = await refundEvents(b.userId);
  t.like(event.data.refund, { reason: 'support refund' });
  t.deepEqual(
    event.data.refund.ended.map((e: { line: number; kind: string; weeks: string[]; listing_id: number }) => [
      e.line,
      e.kind,
      e.listing_id,
      e.weeks,
    ]),
    [[0, 'featured', featured, [isoWeekStart(clock.now()), mondayIn(1)]]],
  );
  const page = await b.client.get(`/account/orders/${number}`);
  t.regex(page.$('[data-ended]').text(), /Refund Featured is no longer featured/);
  const mail = (await mailsTo(db(), b.email)).find((m) => m.subject === `Refund for order ${number}`);
  t.truthy(mail);
  t.regex(mail!.body_text, /Featured placement for Refund Featured\n {4}Refund Featured is no longer featured/);

  // Then the rest: the category placement ends too and the order is refunded.
  const rest = await refund(number);
  t.regex(rest, /Refund Placed no longer has its paid place in the category analytics\./);
  t.deepEqual(await db()('category_placements').where({ listing_id: placed }), []);
  t.is((await db()('orders').where({ number }).first('status'))!.status, 'refunded');
});

test.serial('a refunded paid launch of a scheduled listing returns it to choosing how to launch; its week is free again', async (t) => {
  const b = await buyer();
  const listing = await draft(b.userId, 'Refund Scheduled');
  const week = mondayIn(3);
  const number = await paid(b.key, [{ product: 'launch', listing_id: listing, options: { week } }]);
  t.like(await db()('listings').where({ id: listing }).first(), { status: 'scheduled', plan: 'paid', launch_week: week });
  t.truthy(await db()('launch_slots').where({ listing_id: listing }).first());

  const out = await refund(number, 0);
  t.regex(out, /The paid launch of Refund Scheduled in Week \d+ · .* is canceled .* choose how to launch it again\./);
  t.like(await db()('listings').where({ id: listing }).first(), { status: 'draft', plan: null, launch_week: null });
  t.is(await db()('launch_slots').where({ listing_id: listing }).first(), undefined);
  // Its flow, woken, finds nothing to wait for and ends: nothing makes the listing live later.
  t.is(await workflowResult(env, listingLaunchWorkflowId(listing)), 'draft');
  const listed = (await (
    await fetch(`${env.baseUrl}/api/v1/me/listings/${listing}`, { headers: { authorization: `Bearer ${b.key}` } })
  ).json()) as {
    status: string;
  };
  t.is(listed.status, 'draft');
  const [event] = await refundEvents(b.userId);
  t.like(event.data.refund.ended[0], { line: 0, product: 'launch', kind: 'launch', listing_id: listing, week });
  const page = await b.client.get(`/account/orders/${number}`);
  t.regex(page.$('[data-ended]').text(), /you can choose how to launch it again/);
});

test.serial('a refunded paid launch of a listing already live: it stays live, and the refund says so', async (t) => {
  const b = await buyer();
  const listing = await draft(b.userId, 'Refund Live');
  const number = await paid(b.key, [{ product: 'launch', listing_id: listing }]);
  t.is((await db()('listings').where({ id: listing }).first('status'))!.status, 'live');

  const out = await refund(number);
  t.regex(out, /Refund Live was already live, so it stays live/);
  t.is((await db()('listings').where({ id: listing }).first('status'))!.status, 'live');
  const [event] = await refundEvents(b.userId);
  t.like(event.data.refund.ended[0], { kind: 'still_live', listing_id: listing });
  const mail = (await mailsTo(db(), b.email)).find((m) => m.subject === `Refund for order ${number}`);
  t.regex(mail!.body_text, /was already live, so it stays live/);
});

test.serial('a refunded unlocked section is locked again', async (t) => {
  const b = await buyer();
  const listing = await live(b.userId, 'Refund Section');
  const number = await paid(b.key, [{ product: 'unlock_section', listing_id: listing, options: { section: 'story' } }]);
  t.deepEqual((await db()('listings').where({ id: listing }).first('unlocked_sections'))!.unlocked_sections, ['story']);

  const out = await refund(number, 0);
  t.regex(out, /The founder story section of Refund Section is locked again\./);
  t.deepEqual((await db()('listings').where({ id: listing }).first('unlocked_sections'))!.unlocked_sections, []);
  t.is((await lineOf(number, 0)).ended[0].kind, 'section');
});

test.serial('a refunded billboard gives back its days from today on; the days already shown stay as history', async (t) => {
  const b = await buyer();
  const listing = await live(b.userId, 'Refund Billboard');
  const days = Array.from({ length: 7 }, (_, i) => inDays(i + 1));
  const number = await paid(b.key, [{ product: 'billboard', listing_id: listing, options: { start_date: days[0], days: 7 } }]);
  t.is((await db()('billboard_days').where({ listing_id: listing })).length, 7);

  const real = clock.now();
  clock.set(`${days[2]}T12:00:00Z`);
  t.teardown(() => clock.set(real));
  const out = await refund(number, 0);
  t.regex(out, /The billboard for Refund Billboard on 5 days, .* is canceled\./);
  const left = await db()('billboard_days').where({ listing_id: listing }).orderBy('day').pluck('day');
  t.deepEqual(left, days.slice(0, 2));
  const [event] = await refundEvents(b.userId);
  t.deepEqual(event.data.refund.ended[0].days, days.slice(2));
  // Repeating the refund is refused and changes nothing.
  t.is((await adminInProcess(env, 'orders:refund', '--number', number, '--line', '0')).code, 1);
  t.deepEqual(await db()('billboard_days').where({ listing_id: listing }).orderBy('day').pluck('day'), days.slice(0, 2));
});
