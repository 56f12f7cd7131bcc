import test from 'ava';
import { createClaim } from '../../../src/domain/claims/claims.ts';
import { recordCheck } from '../../../src/domain/claims/verify.ts';
import { launchPaid } from '../../../src/domain/launches/launch-paid.ts';
import { castVote } from '../../../src/domain/ranking/votes.ts';
import { freezeWeek, tellTopOwners } from '../../../src/domain/ranking/weekly-close.ts';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../../../src/workflows/contracts/weeks.ts';
import { createEndpoint } from '../../../src/domain/webhooks/endpoints.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../src/domain/webhooks/events.ts';
import { startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { draftListing } from '../../helpers/launches.ts';
import { insertLiveListing } from '../../helpers/listings.ts';
import { checkout, postWebhook, succeededEvent, waitForOrder } from '../../helpers/orders.ts';
import { voters, shiftIntoPast } from '../../helpers/votes.ts';

/**
 * The moments that emit owners' events: each writes one event and one delivery per
 * subscribed endpoint, once however often the step repeats, with the objects the operations return.
 * Endpoints point at a closed port: delivery itself is tested in test/api/webhooks.test.ts.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const NOWHERE = 'http://127.0.0.1:9/hooks';

async function subscribed(userId: number, events: readonly string[] = WEBHOOK_EVENT_TYPES) {
  return createEndpoint(env.services, userId, { url: NOWHERE, events: events as (typeof WEBHOOK_EVENT_TYPES)[number][] }, true);
}

const eventsOf = (userId: number) => db()('webhook_events').where({ user_id: userId }).orderBy('id');

test('a paid launch: listing.scheduled for a later week, listing.live now; once each, with the owner’s listing', async (t) => {
  const owner = await env.user();
  const endpoint = await subscribed(owner.userId);
  const later = await draftListing(db(), owner.userId, 'https://later-launch.example/', 'Later Launch');
  const week = addWeeks(isoWeekStart(new Date()), 2);
  const deps = { db: db(), workflows: env.services.workflows, baseUrl: env.baseUrl };
  await launchPaid(deps, later.id, week, new Date());
  await launchPaid(deps, later.id, week, new Date());
  const now = await draftListing(db(), owner.userId, 'https://now-launch.example/', 'Now Launch');
  await launchPaid(deps, now.id, null, new Date());

  const events = await eventsOf(owner.userId);
  t.deepEqual(
    events.map((e) => [e.type, e.listing_id]),
    [
      ['listing.scheduled', later.id],
      ['listing.live', now.id],
    ],
  );
  const scheduled = events[0]!.payload;
  t.is(scheduled.type, 'listing.scheduled');
  t.truthy(Date.parse(scheduled.created_at));
  t.like(scheduled.data.listing, { id: later.id, status: 'scheduled', plan: 'paid', launch_week: isoWeekLabel(week) });
  const deliveries = await db()('webhook_deliveries').whereIn(
    'event_id',
    events.map((e) => e.id),
  );
  t.is(deliveries.length, 2);
  t.true(deliveries.every((d) => d.endpoint_id === endpoint.id && d.status === 'pending'));
});

test('vote.milestone at the 10th vote, once, even when a vote is taken back and cast again', async (t) => {
  const owner = await env.user();
  await subscribed(owner.userId, ['vote.milestone']);
  const listingId = await insertLiveListing(db(), { name: 'Vote Vultures', ownerId: owner.userId, url: 'https://vote-vultures.example/' });
  const people = await voters(db(), env.baseUrl, 11);
  for (const p of people.slice(0, 9)) await castVote(db(), p.id, listingId, new Date(), env.baseUrl);
  t.is((await eventsOf(owner.userId)).length, 0);
  await castVote(db(), people[9]!.id, listingId, new Date(), env.baseUrl);
  await db()('votes').where({ listing_id: listingId, user_id: people[9]!.id }).delete();
  await db()('listings').where({ id: listingId }).decrement('votes', 1);
  await castVote(db(), people[10]!.id, listingId, new Date(), env.baseUrl);
  const events = await eventsOf(owner.userId);
  t.is(events.length, 1);
  t.like(events[0]!.payload, { type: 'vote.milestone', data: { milestone: 10, listing: { id: listingId, votes: 10 } } });
});

test('weekly.result for every ranked listing of the closed week, once', async (t) => {
  const owner = await env.user();
  await subscribed(owner.userId, ['weekly.result']);
  const listingId = await insertLiveListing(db(), {
    name: 'Weekly Wombats',
    ownerId: owner.userId,
    url: 'https://weekly-wombats.example/',
  });
  const [voter] = await voters(db(), env.baseUrl, 1);
  await castVote(db(), voter!.id, listingId, new Date());
  await shiftIntoPast(db(), listingId, 1);
  const week = (await db()('listings').where({ id: listingId }).first('launch_week'))!.launch_week!;
  const site = await db()('listings').where({ id: listingId }).first('site_id');
  await freezeWeek(db(), site!.site_id, week, new Date());
  await tellTopOwners(db(), site!.site_id, week, env.baseUrl);
  await tellTopOwners(db(), site!.site_id, week, env.baseUrl);
  const events = await eventsOf(owner.userId);
  t.is(events.length, 1);
  t.like(events[0]!.payload.data, { listing: { id: listingId }, result: { week: isoWeekLabel(week), rank: 1 } });
});

test('claim.verified goes to the claimant’s endpoints, with the claim as list_my_claims shows it', async (t) => {
  const previous = await env.user();
  const claimant = await env.user();
  await subscribed(previous.userId, ['claim.verified']);
  await subscribed(claimant.userId, ['claim.verified']);
  const listing = await draftListing(db(), previous.userId, 'https://claimed-co.example/', 'Claimed Co');
  const { claim } = await createClaim(db(), {
    userId: claimant.userId,
    slug: listing.slug,
    method: 'dns',
    lifetimeMs: 86_400_000,
    baseUrl: env.baseUrl,
  });
  await recordCheck(db(), claim.id, 'request', { result: 'found', detail: 'TXT record found.' }, env.baseUrl, new Date());
  await recordCheck(db(), claim.id, 'request', { result: 'found', detail: 'TXT record found.' }, env.baseUrl, new Date());
  t.is((await eventsOf(previous.userId)).length, 0);
  const events = await eventsOf(claimant.userId);
  t.is(events.length, 1);
  t.like(events[0]!.payload, { type: 'claim.verified', data: { claim: { id: claim.id, status: 'verified', listing_id: listing.id } } });
});

test('order.paid and order.fulfilled from a real payment, with the order as get_order returns it; no endpoint, no event', async (t) => {
  t.timeout(120_000);
  await env.startWorkers();
  const buyer = await env.user();
  const silent = await env.user();
  await subscribed(buyer.userId, ['order.paid', 'order.fulfilled', 'order.refunded']);
  const listingId = await insertLiveListing(db(), { name: 'Order Otters', ownerId: buyer.userId, url: 'https://order-otters.example/' });
  const res = await checkout(env, buyer.key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
    billing_country: 'US',
  });
  t.is(res.status, 201, JSON.stringify(res.body));
  t.is((await postWebhook(env, succeededEvent(res.body.number, res.body.total_cents))).status, 200);
  const order = await waitForOrder(env, buyer.key, res.body.number, ['fulfilled']);
  const events = await eventsOf(buyer.userId);
  t.deepEqual(
    events.map((e) => e.type),
    ['order.paid', 'order.fulfilled'],
  );
  t.like(events[0]!.payload.data.order, { number: order.number, status: 'paid' });
  t.deepEqual(events[1]!.payload.data.order, order);
  t.is(events[1]!.listing_id, listingId);
  t.is((await eventsOf(silent.userId)).length, 0);
});
