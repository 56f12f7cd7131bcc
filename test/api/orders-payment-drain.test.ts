import test from 'ava';
import { createTestProvider } from '../../src/payments/test-provider/index.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { checkout, postWebhook, succeededEvent, waitForOrder } from '../helpers/orders.ts';
import { recordHistory, temporalClient } from '../helpers/workflows.ts';

/**
 * No payment is ever dropped: every payment event that reaches an order after it was paid,
 * expired or canceled is refunded, whenever it arrives; a refund that cannot be made ends, after
 * its bounded tries, with the order in `attention` and the reason.
 */

const STEP_MAX_ATTEMPTS = 3;
/** Each receipt takes this long to be accepted: the run is still sending it 0–50 ms after `fulfilled`. */
const RECEIPT_MS = 150;
let env: TestEnv;
let smtp: TestSmtp;
let owner: { userId: number; key: string };

test.before(async () => {
  smtp = await startTestSmtp();
  smtp.delayMs = RECEIPT_MS;
  env = await startTestEnv(import.meta.url, {
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Listing Directory <orders@example.com>',
    // Receipts go out from the workflow only, not from the sweep.
    MAIL_SWEEP_INTERVAL_MS: '600000',
    // Short tries passed to each run as its input: the bounded refund ends in well under a second.
    ORDER_STEP_MAX_ATTEMPTS: String(STEP_MAX_ATTEMPTS),
    ORDER_STEP_RETRY_INITIAL_MS: '50',
  });
  await env.startWorkers();
  owner = await env.user();
});
test.after.always(async () => {
  await env?.close();
  await smtp?.close();
});

const db = () => env.services.db;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newOrder() {
  const listingId = await insertLiveListing(db(), { name: `Drain ${Math.random().toString(36).slice(2, 8)}`, ownerId: owner.userId });
  const res = await checkout(env, owner.key, {
    items: [{ product: 'featured', listing_id: listingId, options: { weeks: 1 } }],
    billing_country: 'US',
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body as { number: string; total_cents: number };
}

/** Polls the order row every 2 ms (waitForOrder's 150 ms is too coarse to aim at a window). */
async function statusReached(number: string, status: string, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(2)) {
    if ((await db()('orders').where({ number }).first('status'))?.status === status) return;
  }
  throw new Error(`order ${number} never became ${status}`);
}

/** The refund recorded for a payment, waiting up to `timeoutMs` for it. */
async function refundOf(paymentId: string, timeoutMs = 20_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    const row = await db()('refunds')
      .where({ dedupe_key: `refund:${paymentId}` })
      .first();
    if (row) return row;
  }
  return undefined;
}

test.serial('a second payment 0–50 ms after the first is fulfilled is refunded, whichever step the workflow is at', async (t) => {
  const ORDERS = 12;
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  const runs: { number: string; total: number; firstRun: string; second: string }[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const order = await newOrder();
    const firstRun = (await client.workflow.getHandle(`order:${order.number}`).describe()).runId;
    t.is((await postWebhook(env, succeededEvent(order.number, order.total_cents))).status, 200);
    await statusReached(order.number, 'fulfilled');
    // Spread over the window in which the workflow sends its receipt (RECEIPT_MS) and reads the final status.
    await sleep((i * 50) / (ORDERS - 1));
    const second = succeededEvent(order.number, order.total_cents);
    const answer = await postWebhook(env, second);
    t.is(answer.status, 200);
    t.like(answer.body, { received: true, duplicate: false, order: order.number });
    runs.push({ number: order.number, total: order.total_cents, firstRun, second: second.data.object.id });
  }
  // One deadline for all: the refunds come within a second or two of their events.
  const deadline = Date.now() + 20_000;
  const refunds = new Map<string, any>();
  while (refunds.size < runs.length && Date.now() < deadline) {
    const rows = await db()('refunds').whereIn(
      'dedupe_key',
      runs.map((r) => `refund:${r.second}`),
    );
    for (const row of rows) refunds.set(row.dedupe_key, row);
    if (refunds.size < runs.length) await sleep(100);
  }
  let inFirstRun = 0;
  let recorded = false;
  for (const run of runs) {
    if ((await client.workflow.getHandle(`order:${run.number}`).describe()).runId !== run.firstRun) continue;
    // Reached the run that fulfilled the order (not a new run started for the late event).
    inFirstRun++;
    if (!recorded && refunds.has(`refund:${run.second}`)) {
      await recordHistory(env, `order:${run.number}`, 'order-workflow-late-payment.json');
      recorded = true;
    }
  }
  t.log(`${inFirstRun} of ${ORDERS} second payments reached the run still finishing the order; ${refunds.size} of ${ORDERS} refunded`);
  t.deepEqual(
    runs.filter((run) => !refunds.has(`refund:${run.second}`)).map((run) => run.number),
    [],
    'second payments never refunded',
  );
  for (const run of runs) {
    t.like(refunds.get(`refund:${run.second}`), { amount_cents: run.total, reason: 'the order was already paid' });
    t.is((await db()('orders').where({ number: run.number }).first('status'))!.status, 'fulfilled');
  }
});

test('two payments for an expired or a canceled order, a few ms apart, are both refunded', async (t) => {
  for (const status of ['expired', 'canceled'] as const) {
    const order = await newOrder();
    // The workflow waits for its payment; the order's link ends meanwhile.
    await db()('orders').where({ number: order.number }).update({ status });
    const first = succeededEvent(order.number, order.total_cents);
    const second = succeededEvent(order.number, order.total_cents);
    const answers = await Promise.all([postWebhook(env, first), sleep(10).then(() => postWebhook(env, second))]);
    t.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
    );
    for (const event of [first, second]) {
      t.like(await refundOf(event.data.object.id), { amount_cents: order.total_cents, reason: `payment for an order that is ${status}` });
    }
    t.is((await db()('orders').where({ number: order.number }).first('status'))!.status, status);
  }
});

test('a refund the provider refuses puts the order in attention with the reason, and the run ends', async (t) => {
  const order = await newOrder();
  const provider = createTestProvider(db(), env.services.config.orders);
  const pay = (number: string) =>
    provider.pay({ number: order.number, amountCents: order.total_cents, currency: 'USD' }, 'card', {
      number,
      expiry: '12/40',
      cvc: '123',
    });
  t.is((await pay('4242 4242 4242 4242')).status, 'succeeded');
  await waitForOrder(env, owner.key, order.number, ['fulfilled']);
  // Paid twice, the second time by a card whose issuer takes no refunds.
  const refused = await pay('4000 0000 0000 5126');
  t.is(refused.status, 'succeeded');
  const res = await waitForOrder(env, owner.key, order.number, ['attention'], 15_000);
  t.is(res.status, 'attention');
  const row = await db()('orders').where({ number: order.number }).first('attention_reason');
  t.regex(
    row!.attention_reason!,
    new RegExp(`refund of payment ${refused.paymentId} \\(the order was already paid\\) failed: the provider refused`),
  );
  const { id } = (await db()('orders').where({ number: order.number }).first('id'))!;
  t.is(await db()('refunds').where({ order_id: id }).first(), undefined);
  t.is((await provider.payment(refused.paymentId))?.status, 'succeeded');
  // Nothing is left retrying: the order's workflow has completed.
  const { client, close } = await temporalClient(env);
  t.teardown(close);
  t.deepEqual(await client.workflow.getHandle(`order:${order.number}`).result(), { status: 'attention' });
});

test('a refund step that keeps failing stops after its tries: attention with the cause', async (t) => {
  const order = await newOrder();
  const { id } = (await db()('orders').where({ number: order.number }).first('id'))!;
  // The database refuses this order's refund row, as often as asked; a sequence counts the tries
  // (sequences are not rolled back with the failed insert).
  await db().raw(`CREATE SEQUENCE refund_tries_${id}`);
  await db().raw(`CREATE FUNCTION refuse_refund_${id}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.order_id = ${id} THEN
        PERFORM nextval('refund_tries_${id}');
        RAISE EXCEPTION 'refunds of order ${id} are refused by this test';
      END IF;
      RETURN NEW;
    END $$`);
  await db().raw(`CREATE TRIGGER refuse_refund_${id} BEFORE INSERT ON refunds FOR EACH ROW EXECUTE FUNCTION refuse_refund_${id}()`);
  await db()('orders').where({ id }).update({ status: 'expired' });
  const event = succeededEvent(order.number, order.total_cents);
  t.is((await postWebhook(env, event)).status, 200);
  const res = await waitForOrder(env, owner.key, order.number, ['attention'], 15_000);
  t.is(res.status, 'attention');
  const row = await db()('orders').where({ id }).first('attention_reason');
  t.regex(row!.attention_reason!, /refund of payment .* \(payment for an order that is expired\) failed: .*refused by this test/);
  const tries = await db().raw(`SELECT last_value FROM refund_tries_${id}`);
  t.is(Number(tries.rows[0].last_value), STEP_MAX_ATTEMPTS);
});
