import test from 'ava';
import { pino } from 'pino';
import { deliverOutbox, MAX_ATTEMPTS, retryDelaySeconds } from '../../src/mail/deliver.ts';
import { queueMail } from '../../src/mail/outbox.ts';
import { createMailer, type Mailer } from '../../src/mail/smtp.ts';
import { startMailSweeper } from '../../src/mail/sweeper.ts';
import type { TestEnv } from '../helpers/env.ts';
import { startMailTestEnv } from '../helpers/mail-env.ts';
import type { TestSmtp } from '../helpers/smtp.ts';
import { eventually } from '../helpers/eventually.ts';

let env: TestEnv;
let smtp: TestSmtp;
let mailer: Mailer;
let close: (() => Promise<void>) | undefined;

test.before(async () => {
  ({ env, smtp, mailer, close } = await startMailTestEnv(import.meta.url));
});
test.after.always(() => close?.());

// Tests share one outbox, so they run one after another and each uses its own addresses.
const db = () => env.services.db;

async function queue(prefix: string, count: number): Promise<string[]> {
  const addresses = Array.from({ length: count }, (_, i) => `${prefix}-${i}@example.com`);
  for (const to of addresses) await queueMail(db(), { to, subject: `Hello ${to}`, text: 'Plain text\nsecond line' });
  return addresses;
}

const rowFor = (to: string) => db()('mail_outbox').where({ to_address: to }).first();

test('without SMTP_URL there is no mailer and mail stays queued', (t) => {
  t.is(createMailer({ baseUrl: env.baseUrl, mail: { smtpUrl: undefined, from: 'x <x@example.com>', sweepIntervalMs: 1000 } }), null);
});

test.serial('concurrent deliverers send each queued mail exactly once and mark it sent', async (t) => {
  const addresses = await queue('concurrent', 40);
  const reports = await Promise.all([1, 2, 3].map(() => deliverOutbox(db(), mailer, { lanes: 3 })));
  t.is(
    reports.reduce((sum, r) => sum + r.sent, 0),
    40,
  );
  for (const to of addresses) t.is(smtp.countFor(to), 1, to);
  const unsent = await db()('mail_outbox').whereIn('to_address', addresses).whereNull('sent_at').count({ count: '*' });
  t.is(Number(unsent[0].count), 0);
  const mail = smtp.received.find((m) => m.to.includes(addresses[0]!))!;
  t.is(mail.from, 'no-reply@example.com');
  const id = (await rowFor(addresses[0]!))!.id;
  t.regex(mail.raw, new RegExp(`Message-ID: <outbox-${id}@127\\.0\\.0\\.1>`, 'i'));
  t.regex(mail.raw, /Subject: Hello concurrent-0@example\.com/);
  // Nothing is due any more: a second run sends nothing.
  t.deepEqual(await deliverOutbox(db(), mailer), { sent: 0, retrying: 0, failed: 0 });
});

test.serial('only the given ids are delivered when ids are passed', async (t) => {
  const [first, second] = await queue('ids', 2);
  const firstId = (await rowFor(first!))!.id;
  const report = await deliverOutbox(db(), mailer, { ids: [firstId] });
  t.is(report.sent, 1);
  t.is(smtp.countFor(first!), 1);
  t.is(smtp.countFor(second!), 0);
  await deliverOutbox(db(), mailer);
  t.is(smtp.countFor(second!), 1);
});

test.serial('a temporary refusal is retried after a back-off; a permanent one is not', async (t) => {
  const [flaky, gone] = await queue('refused', 2);
  smtp.answerFor = (address) => (address === flaky ? 451 : address === gone ? 550 : null);
  t.teardown(() => (smtp.answerFor = () => null));
  const report = await deliverOutbox(db(), mailer);
  t.deepEqual(report, { sent: 0, retrying: 1, failed: 1 });

  const flakyRow = await rowFor(flaky!);
  t.is(flakyRow!.attempts, 1);
  t.is(flakyRow!.sent_at, null);
  t.is(flakyRow!.failed_at, null);
  t.regex(flakyRow!.last_error!, /451/);
  const waitMs = flakyRow!.next_attempt_at.getTime() - Date.now();
  t.true(waitMs > (retryDelaySeconds(1) - 5) * 1000, `next attempt in ${waitMs} ms`);
  const goneRow = await rowFor(gone!);
  t.truthy(goneRow!.failed_at);
  t.regex(goneRow!.last_error!, /550/);

  // Not due yet: nothing is sent, even though the server would now accept it.
  smtp.answerFor = () => null;
  t.is((await deliverOutbox(db(), mailer)).sent, 0);
  await db()('mail_outbox').where({ id: flakyRow!.id }).update({ next_attempt_at: db().fn.now() });
  t.deepEqual(await deliverOutbox(db(), mailer), { sent: 1, retrying: 0, failed: 0 });
  t.is(smtp.countFor(flaky!), 1);
  t.is(smtp.countFor(gone!), 0);
  const sent = await rowFor(flaky!);
  t.is(sent!.attempts, 2);
  t.is(sent!.last_error, null);
  t.truthy(sent!.sent_at);
});

test.serial('a mail gives up after the last attempt', async (t) => {
  const [to] = await queue('exhausted', 1);
  await db()('mail_outbox')
    .where({ to_address: to })
    .update({ attempts: MAX_ATTEMPTS - 1 });
  smtp.answerFor = () => 421;
  t.teardown(() => (smtp.answerFor = () => null));
  t.deepEqual(await deliverOutbox(db(), mailer), { sent: 0, retrying: 0, failed: 1 });
  t.truthy((await rowFor(to!))!.failed_at);
});

test.serial('an aborted delivery stops between mails and leaves the rest queued', async (t) => {
  const addresses = await queue('aborted', 5);
  const abort = new AbortController();
  const report = await deliverOutbox(db(), mailer, {
    lanes: 1,
    signal: abort.signal,
    onProgress: (r) => r.sent === 2 && abort.abort(),
  });
  t.is(report.sent, 2);
  t.is(addresses.filter((a) => smtp.countFor(a) === 1).length, 2);
  await deliverOutbox(db(), mailer);
  for (const to of addresses) t.is(smtp.countFor(to), 1);
});

test.serial('the sweeper delivers mail that was only queued (e.g. a verification mail)', async (t) => {
  const sweeper = startMailSweeper({ db: db(), mailer, intervalMs: 100, log: pino({ level: 'silent' }) });
  t.teardown(() => sweeper.stop());
  await new Promise((r) => setTimeout(r, 150)); // the first sweep found nothing
  const [to] = await queue('swept', 1);
  await eventually('the swept mail', () => smtp.countFor(to!) > 0, { timeoutMs: 10_000 });
  t.is(smtp.countFor(to!), 1);
  await sweeper.stop();
  t.truthy((await rowFor(to!))!.sent_at);
});
