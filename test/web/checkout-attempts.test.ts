import test from 'ava';
import { setLaunchSettings } from '../../src/domain/launches/launch-settings.ts';
import { ATTEMPT_STALE_MS } from '../../src/domain/orders/payment-attempts.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertDraftListing, insertLiveListing } from '../helpers/listings.ts';
import { checkout, mondayIn, waitForOrder } from '../helpers/orders.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';

/** The pay page charges an order once, and only for what can still be delivered. Serial: tests move the shared clock. */

let env: TestEnv;
let owner: { userId: number; key: string };
const clock = new ManualClock(new Date());

test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  await env.startWorkers();
  owner = await env.user();
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const unique = () => Math.random().toString(36).slice(2, 8);

async function newOrder(items: (listingId: number) => unknown[], draft = false) {
  const fields = { name: `Shop ${unique()}`, ownerId: owner.userId };
  const listingId = draft ? await insertDraftListing(db(), fields) : await insertLiveListing(db(), fields);
  const res = await checkout(env, owner.key, { items: items(listingId), billing_country: 'US' });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  const path = new URL(res.body.checkout_url).pathname;
  const client = new WebClient(env.baseUrl);
  const csrf = await client.csrfFrom(path);
  return { order: res.body as { number: string; total_cents: number }, listingId, path, client, csrf };
}

const featured = (id: number) => [{ product: 'featured', listing_id: id, options: { weeks: 2 } }];

/** The pay form as a person fills it in: billing country as ordered, a card. */
const payForm = (csrf: string, number = '4242 4242 4242 4242') => ({
  _csrf: csrf,
  name: 'Tab Payer',
  country: 'US',
  vat_number: '',
  method: 'card',
  card_number: number,
  expiry: '12/34',
  cvc: '123',
});

const payments = (number: string) => db()('test_payments').where({ order_number: number });
const mainText = (res: WebResponse) => res.$('main').text().replace(/\s+/g, ' ');

test.serial(
  'the pay form sent from 4 tabs at once charges once: one payment captured, no refund; the other tabs are told it is under way',
  async (t) => {
    const { order, path, client, csrf } = await newOrder(featured);
    const answers = await Promise.all(Array.from({ length: 4 }, () => client.post(`${path}/pay`, payForm(csrf))));
    for (const res of answers) {
      if (res.status === 302) t.is(res.location, `${path}/done`);
      else {
        t.is(res.status, 409, mainText(res));
        t.regex(mainText(res), /This order's payment is under way.*Nothing more will be charged/);
        t.is(res.$('a#recheck').attr('href'), path);
      }
    }
    t.true(answers.some((a) => a.status === 409));
    t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled', 'attention', 'refunded'])).status, 'fulfilled');
    const captured = await payments(order.number);
    t.is(captured.length, 1, JSON.stringify(captured));
    t.is(captured[0]!.status, 'succeeded');
    const { id } = (await db()('orders').where({ number: order.number }).first('id'))!;
    t.is(Number((await db()('refunds').where({ order_id: id }).count({ n: '*' }))[0]!.n), 0);
    // Once paid, another press (a tab left open) shows the paid result and charges nothing.
    const again = await client.post(`${path}/pay`, payForm(csrf));
    t.is(again.status, 302);
    t.is(again.location, `${path}/done`);
    t.regex(mainText(await client.get(`${path}/done`)), /paid/);
    t.is((await payments(order.number)).length, 1);
  },
);

test.serial('paid slots set to 0 after the checkout: paying charges nothing, and the page says why and what to do', async (t) => {
  const week = mondayIn(3);
  const { order, listingId, path, client, csrf } = await newOrder((id) => [{ product: 'launch', listing_id: id, options: { week } }], true);
  await setLaunchSettings(db(), 'main', { paid_slots_per_week: 0 });
  try {
    const res = await client.post(`${path}/pay`, payForm(csrf));
    t.is(res.status, 409);
    t.is(res.$('h1').text(), 'This order cannot be paid');
    t.regex(mainText(res), /Nothing was charged/);
    t.regex(res.$('[data-refusal]').text(), /Paid launch.*has no paid launch slots any more; choose another week\./i);
    t.is(res.$(`a[href="/account/listings/${listingId}/promote"]`).length, 1);
    t.is((await payments(order.number)).length, 0);
    // The page itself says so before anyone presses Pay.
    const shown = await client.get(path);
    t.is(shown.status, 200);
    t.is(shown.$('h1').text(), 'This order cannot be paid');
    t.is(shown.$('form[action$="/pay"]').length, 0);
  } finally {
    await setLaunchSettings(db(), 'main', { paid_slots_per_week: 10 });
  }
  // Slots back: the held one is there to pay for.
  const paid = await client.post(`${path}/pay`, payForm(await client.csrfFrom(path)));
  t.is(paid.status, 302, mainText(paid));
  t.is((await waitForOrder(env, owner.key, order.number, ['fulfilled', 'attention', 'refunded'])).status, 'fulfilled');
  t.is((await payments(order.number)).length, 1);
});

test.serial('a declined attempt ends: the person can pay again at once', async (t) => {
  const { order, path, client, csrf } = await newOrder(featured);
  const declined = await client.post(`${path}/pay`, payForm(csrf, '4000 0000 0000 0002'));
  t.is(declined.status, 402);
  t.regex(mainText(declined), /Your card was declined/);
  // Another tab's view of the result.
  t.regex(mainText(await new WebClient(env.baseUrl).get(path)), /The last payment attempt was declined: Your card was declined/);
  const paid = await client.post(`${path}/pay`, payForm(csrf));
  t.is(paid.status, 302);
  await waitForOrder(env, owner.key, order.number, ['fulfilled']);
  t.deepEqual((await payments(order.number)).map((p) => p.status).sort(), ['declined', 'succeeded']);
});

test.serial(
  'an attempt whose process died mid-charge blocks only until it is stale; then the provider is asked and a new attempt charges',
  async (t) => {
    const { order, path, client, csrf } = await newOrder(featured);
    const { id } = (await db()('orders').where({ number: order.number }).first('id'))!;
    // A process took the attempt and died before the provider answered.
    await db()('payment_attempts').insert({ order_id: id, state: 'charging', started_at: clock.now(), updated_at: clock.now() });
    const blocked = await client.post(`${path}/pay`, payForm(csrf));
    t.is(blocked.status, 409);
    t.regex(mainText(blocked), /under way/);
    t.is((await payments(order.number)).length, 0);
    clock.advance(ATTEMPT_STALE_MS);
    const paid = await client.post(`${path}/pay`, payForm(csrf));
    t.is(paid.status, 302, mainText(paid));
    await waitForOrder(env, owner.key, order.number, ['fulfilled']);
    t.deepEqual(
      (await db()('payment_attempts').where({ order_id: id }).orderBy('id')).map((a) => a.state),
      ['abandoned', 'succeeded'],
    );
    t.is((await payments(order.number)).length, 1);
  },
);

test.serial('a step left open by an abandoned attempt can no longer charge', async (t) => {
  const { order, path, client, csrf } = await newOrder(featured);
  const step = await client.post(`${path}/pay`, payForm(csrf, '4000 0027 6000 3184'));
  t.is(step.status, 302);
  t.regex(step.location!, /\/step\//);
  // Another tab meanwhile: the payment waits for the step.
  const other = await client.post(`${path}/pay`, payForm(csrf));
  t.is(other.status, 409);
  t.is(other.$(`a[href="${step.location}"]`).length, 1);
  clock.advance(ATTEMPT_STALE_MS);
  t.is((await client.post(`${path}/pay`, payForm(csrf))).status, 302);
  const late = await client.post(step.location!, { _csrf: csrf, decision: 'approve' });
  t.is(late.status, 409);
  t.regex(late.text, /This payment step is no longer open|no longer waiting for payment/);
  await waitForOrder(env, owner.key, order.number, ['fulfilled']);
  t.deepEqual((await payments(order.number)).map((p) => p.status).sort(), ['requires_action', 'succeeded']);
});
