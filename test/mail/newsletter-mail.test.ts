import test from 'ava';
import { sendIssueBatch } from '../../src/domain/newsletter/sending.ts';
import { deliverOutbox } from '../../src/mail/deliver.ts';
import type { TestEnv } from '../helpers/env.ts';
import { startMailTestEnv } from '../helpers/mail-env.ts';
import { closedWeek, confirmedSubscribers, insertFeatured, siteNamed } from '../helpers/newsletter.ts';
import type { Mailer } from '../../src/mail/smtp.ts';
import type { TestSmtp } from '../helpers/smtp.ts';

// A newsletter issue through the real SMTP path (outbox → nodemailer → loopback SMTP server): the
// text and HTML parts, the one-click headers, the envelope sender bounces go to.

let env: TestEnv;
let smtp: TestSmtp;
let mailer: Mailer;
let close: (() => Promise<void>) | undefined;
test.before(async () => {
  ({ env, smtp, mailer, close } = await startMailTestEnv(import.meta.url));
});
test.after.always(() => close?.());

const db = () => env.services.db;
const BOUNCES = 'bounces@example.com';

test('an issue has a text part, an HTML part with logos, the one-click headers and the bounce address as envelope sender', async (t) => {
  const { monday, listingIds, nextName } = await closedWeek(db(), 2, ['Mail Marmot', 'Mail Moose']);
  await db()('listings').where({ id: listingIds[0]! }).update({ logo_url: '/media/logos/abc/256.png' });
  await insertFeatured(db(), listingIds[1]!, monday);
  const [reader] = await confirmedSubscribers(db(), 1);
  const site = await siteNamed(db());
  await db()('newsletter_issues').insert({ site_id: site.id, week: monday });
  const batch = await sendIssueBatch(db(), site, monday, 0, 10, { baseUrl: env.baseUrl, bounceAddress: BOUNCES });
  t.is(batch.queued, 1);
  t.is(batch.lastSubscriberId, null, 'one batch was all');
  t.is((await deliverOutbox(db(), mailer, { ids: batch.mailIds })).sent, 1);

  const mail = smtp.received.find((m) => m.to.includes(reader!.email))!;
  t.truthy(mail);
  t.is(mail.from, BOUNCES, 'the envelope sender (Return-Path) is the bounce address');
  const raw = mail.raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ');
  const unsubscribe = /^List-Unsubscribe: <([^>]+)>/im.exec(raw)?.[1];
  t.regex(unsubscribe ?? '', new RegExp(`^${env.baseUrl.replace(/\./g, '\\.')}/newsletter/unsubscribe/\\d+\\.[A-Za-z0-9_-]{43}$`));
  t.regex(raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click/im);
  t.regex(raw, /Content-Type: multipart\/alternative/i);
  t.regex(raw, /Content-Type: text\/plain/i);
  t.regex(raw, /Content-Type: text\/html/i);
  t.regex(raw, /#1 Mail Marmot/);
  t.regex(raw, /\[Featured\] Mail Moose/, 'featured in the text');
  t.regex(raw, /Featured<\/strong>/, 'featured in the HTML');
  t.true(raw.includes(`${env.baseUrl}/media/logos/abc/256.png`), 'the logo in the HTML');
  t.true(raw.includes(nextName), 'next week’s launches');
  t.regex(raw, new RegExp(`${env.baseUrl.replace(/\./g, '\\.')}/newsletter/\\d{4}/\\d{1,2}`), 'the web version');
  t.regex(raw, new RegExp(`${env.baseUrl.replace(/\./g, '\\.')}/launches/\\d{4}/\\d{1,2}`), 'the archive page');

  // Run again (a retried batch): nothing is queued twice.
  const again = await sendIssueBatch(db(), site, monday, 0, 10, { baseUrl: env.baseUrl, bounceAddress: BOUNCES });
  t.is(again.queued, 0);
  t.deepEqual(again.mailIds, [], 'the sent mail is not handed out again');
});
