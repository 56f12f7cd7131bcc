import fs from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { testWorkflowBundle } from '../helpers/bundle.ts';

// An order of five lines paid by one event delivered five times, recorded from a real run
// (UPDATE_FIXTURES=1 npm test -- test/api/orders-payments.test.ts rewrites it). A change to
// orderWorkflow that would break orders already running fails here. The -v1 history is a frozen
// run from before local fulfilment (kept behind patched('order-local-fulfilment')).
// -line-refunded is an order whose launch line was undeliverable and refunded (issue 20, behind
// patched('order-refund-undeliverable'); test/api/orders-capacity.test.ts rewrites it).
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');

const recorded = async (fixture: string) => historyFromJSON(JSON.parse(await fs.readFile(path.join(FIXTURES, fixture), 'utf8')));
type History = Awaited<ReturnType<typeof recorded>>;
const activitiesOf = (history: History) => history.events!.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
const replay = async (history: History, id: string) => Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, id);

type LongId = { toNumber(): number; subtract(n: number): LongId };
const isLongId = (v: unknown): v is LongId => typeof (v as LongId | null)?.toNumber === 'function';

/** Lowers every event id (its own and those it refers to, `…EventId`) after `afterId` by `by`. */
function shiftEventIds(node: unknown, afterId: number, by: number): void {
  if (!node || typeof node !== 'object' || ArrayBuffer.isView(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (/^eventId$|EventId$/.test(key) && isLongId(value)) {
      if (value.toNumber() > afterId) (node as Record<string, unknown>)[key] = value.subtract(by);
    } else shiftEventIds(value, afterId, by);
  }
}

test('orderWorkflow replays the recorded history', async (t) => {
  const history = await recorded('order-workflow-fulfilled.json');
  // Database steps and fulfilment are local activities (markers); only the receipt goes through the server.
  t.deepEqual(activitiesOf(history), ['deliverMail']);
  const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'paymentConfirmed');
  t.true(signals.length >= 1);
  t.true(history.events!.filter((e) => e.markerRecordedEventAttributes).length >= 5 + 4);
  await t.notThrowsAsync(replay(history, 'order'));
});

test('orderWorkflow replays a run from before local fulfilment (receipt first, lines as activities)', async (t) => {
  const history = await recorded('order-workflow-fulfilled-v1.json');
  t.deepEqual(activitiesOf(history), ['deliverMail', 'fulfilLine', 'fulfilLine', 'fulfilLine', 'fulfilLine', 'fulfilLine']);
  await t.notThrowsAsync(replay(history, 'order-v1'));
});

test('orderWorkflow replays a run that refunded an undeliverable line (patch order-refund-undeliverable) and fulfilled the rest', async (t) => {
  // Recorded by test/api/orders-capacity.test.ts (UPDATE_FIXTURES=1): featured fulfilled, launch refunded.
  const history = await recorded('order-workflow-line-refunded.json');
  const markers = history.events!.flatMap((e) => e.markerRecordedEventAttributes ?? []);
  t.true(markers.some((m) => m.markerName === 'core_patch'));
  // A local activity's marker carries its type in the first payload of `data`.
  const localTypes = markers.flatMap((m) => {
    const data = m.details?.data?.payloads?.[0]?.data;
    return data ? [JSON.parse(Buffer.from(data).toString('utf8')).activity_type as string] : [];
  });
  t.deepEqual(
    localTypes.filter((type) => ['fulfilLine', 'refundUndeliverable', 'markAttention', 'completeOrder'].includes(type)),
    ['fulfilLine', 'fulfilLine', 'refundUndeliverable', 'completeOrder'],
  );
  await t.notThrowsAsync(replay(history, 'order-line-refunded'));
});

test('without its patch marker, the refunded run fails the replay (the refund is behind patched())', async (t) => {
  const history = await recorded('order-workflow-line-refunded.json');
  // The second patch marker is the refund's: drop it and its search attribute upsert, and renumber what follows.
  const patches = history.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
  const cut = history.events!.indexOf(patches.at(-1)!);
  const cutId = Number(history.events![cut]!.eventId);
  history.events!.splice(cut, 2);
  for (const event of history.events!) shiftEventIds(event, cutId, 2);
  // Unpatched, the code takes the old path: markAttention where the history refunded.
  await t.throwsAsync(replay(history, 'order-line-refunded-unpatched'), { message: /refundUndeliverable.*markAttention/ });
});

/** The local activities of a history, in order (their markers carry the type). */
const localActivitiesOf = (history: History) =>
  history.events!.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
    return e.markerRecordedEventAttributes?.markerName === 'core_local_activity' && data
      ? [JSON.parse(Buffer.from(data).toString()).activity_type as string]
      : [];
  });

test('orderWorkflow replays a run that refunded a second payment arriving while its receipt went out', async (t) => {
  // Recorded by test/api/orders-payment-drain.test.ts (UPDATE_FIXTURES=1), with patched('order-payment-drain').
  const history = await recorded('order-workflow-late-payment.json');
  const signals = history.events!.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'paymentConfirmed');
  t.is(signals.length, 2);
  t.deepEqual(activitiesOf(history), ['deliverMail']);
  t.deepEqual(localActivitiesOf(history).slice(-3), ['applyPayment', 'refundPayment', 'orderStatus']);
  await t.notThrowsAsync(replay(history, 'order-late-payment'));
});

test('a history where fulfilment came before the receipt fails the replay', async (t) => {
  const history = await recorded('order-workflow-fulfilled-v1.json');
  const mail = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverMail')!;
  mail.activityTaskScheduledEventAttributes!.activityType = { name: 'fulfilLine' };
  await t.throwsAsync(replay(history, 'tampered'));
});

test('a history that skipped the receipt fails the replay', async (t) => {
  const history = await recorded('order-workflow-fulfilled.json');
  const mail = history.events!.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverMail')!;
  mail.activityTaskScheduledEventAttributes!.activityType = { name: 'somethingElse' };
  await t.throwsAsync(replay(history, 'tampered-v2'));
});
