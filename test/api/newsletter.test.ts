import test from 'ava';
import { sendIssueBatch } from '../../src/domain/newsletter/sending.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { verifyEmail } from '../helpers/followers.ts';
import { closedWeek, siteNamed } from '../helpers/newsletter.ts';
import { WebClient, mailsTo, type OutboxMail } from '../helpers/web.ts';

// Subscribing (double opt-in, no enumeration, re-send limit), confirming, unsubscribing by link
// and by the account, bad input, and bounces, over REST and the pages; time moves on a ManualClock.

const RESEND_MINUTES = 15;
const CONFIRM_HOURS = 72;
const clock = new ManualClock('2026-11-02T09:00:00Z');
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(
    import.meta.url,
    { NEWSLETTER_CONFIRM_RESEND_MINUTES: String(RESEND_MINUTES), NEWSLETTER_CONFIRM_HOURS: String(CONFIRM_HOURS) },
    { clock },
  );
});
test.after.always(() => env?.close());

const db = () => env.services.db;
let n = 0;
const address = (tag: string) => `Reader.${tag}.${++n}@Example.com`;
const subscribe = (email: string, extra: Record<string, unknown> = {}) =>
  api(env, 'POST', '/newsletter/subscribe', { body: { email, ...extra } });

/** The confirmation link's token in the last mail to `email`. */
async function confirmToken(email: string): Promise<string> {
  const mails = await mailsTo(db(), email);
  const mail = mails.at(-1) as OutboxMail;
  const match = /\/newsletter\/confirm\/([A-Za-z0-9_-]+)/.exec(mail.body_text);
  if (!match) throw new Error(`no confirmation link in "${mail.body_text}"`);
  return match[1]!;
}

/** Queues the issue of a closed week for every subscriber (one batch) and returns the outbox rows it queued. */
async function sendIssue(monday: string): Promise<number> {
  const site = await siteNamed(db());
  await db()('newsletter_issues').insert({ site_id: site.id, week: monday }).onConflict(['site_id', 'week']).ignore();
  const batch = await sendIssueBatch(db(), site, monday, 0, 1000, { baseUrl: env.baseUrl, bounceAddress: 'bounces@example.com' });
  return batch.queued;
}

const issueMailsTo = async (email: string) => (await mailsTo(db(), email)).filter((m) => m.subject.includes('the launches of'));

test.serial('double opt-in: a confirmation mail, nothing before the link is used, the link works once', async (t) => {
  const email = address('optin');
  const res = await subscribe(email);
  t.is(res.status, 202, JSON.stringify(res.body));
  const mails = await mailsTo(db(), email);
  t.is(mails.length, 1);
  t.regex(mails[0]!.subject, /Confirm your subscription/);

  const { monday } = await closedWeek(db(), 3, ['Optin Owls']);
  await sendIssue(monday);
  t.is((await issueMailsTo(email)).length, 0, 'no issue before the confirmation');

  const token = await confirmToken(email);
  const web = new WebClient(env.baseUrl);
  const shown = await web.get(`/newsletter/confirm/${token}`);
  t.is(shown.status, 200);
  t.is(shown.$('form[action^="/newsletter/confirm/"] button').length, 1, 'a GET only shows the button');
  t.is((await db()('newsletter_subscribers').where({ email: email.toLowerCase() }).first())!.confirmed_at, null);

  const confirmed = await web.post(`/newsletter/confirm/${token}`, {});
  t.is(confirmed.status, 200);
  t.is(confirmed.$('h1').text(), 'You are subscribed');
  const again = await web.post(`/newsletter/confirm/${token}`, {});
  t.is(again.status, 400);
  t.regex(again.$('h1').text(), /does not work/);
  const apiAgain = await api(env, 'POST', '/newsletter/confirm', { body: { token } });
  t.is(apiAgain.status, 400);
  t.is(apiAgain.body.code, 'newsletter_link_invalid');

  await sendIssue(monday);
  t.is((await issueMailsTo(email)).length, 1, 'the issue once confirmed');
});

test.serial('the same answer for every address; an unconfirmed one is re-sent at most once per interval', async (t) => {
  const email = address('enum');
  const first = await subscribe(email);
  const second = await subscribe(email);
  const fresh = await subscribe(address('other'));
  t.deepEqual(first.body, second.body);
  t.deepEqual(first.body, fresh.body);
  t.is(second.status, 202);
  t.is((await mailsTo(db(), email)).length, 1, 'no second mail within the interval');
  clock.advance((RESEND_MINUTES + 1) * 60_000);
  t.is((await subscribe(email)).status, 202);
  t.is((await mailsTo(db(), email)).length, 2, 're-sent after the interval');
  t.not(await confirmToken(email), '', 'a fresh link');

  // A confirmed address gets the same answer and no mail.
  const token = await confirmToken(email);
  t.is((await api(env, 'POST', '/newsletter/confirm', { body: { token } })).status, 200);
  clock.advance((RESEND_MINUTES + 1) * 60_000);
  const known = await subscribe(email);
  t.deepEqual(known.body, first.body);
  t.is((await mailsTo(db(), email)).length, 2);
});

test.serial('a wrong or expired confirmation link is a clear 400 page', async (t) => {
  const web = new WebClient(env.baseUrl);
  const wrong = await web.get('/newsletter/confirm/not-a-token');
  t.is(wrong.status, 400);
  t.regex(wrong.$('h1').text(), /does not work/);
  const forged = await web.post(`/newsletter/confirm/${'A'.repeat(43)}`, {});
  t.is(forged.status, 400);

  const email = address('expired');
  await subscribe(email);
  const token = await confirmToken(email);
  clock.advance((CONFIRM_HOURS + 1) * 3_600_000);
  const shown = await web.get(`/newsletter/confirm/${token}`);
  t.is(shown.status, 400);
  t.regex(shown.$('h1').text(), /expired/);
  const used = await web.post(`/newsletter/confirm/${token}`, {});
  t.is(used.status, 400);
  t.regex(used.$('h1').text(), /expired/);
  t.is((await db()('newsletter_subscribers').where({ email: email.toLowerCase() }).first())!.confirmed_at, null);
});

test.serial('unsubscribe: the one-click POST without cookies, the page, and a forged link', async (t) => {
  const emails = [address('oneclick'), address('page')];
  for (const email of emails) {
    await subscribe(email);
    t.is((await api(env, 'POST', '/newsletter/confirm', { body: { token: await confirmToken(email) } })).status, 200);
  }
  const { monday } = await closedWeek(db(), 4, ['Leaving Larks']);
  await sendIssue(monday);
  const links = await Promise.all(
    emails.map(async (email) => {
      const [mail] = await db()('mail_outbox').where({ to_address: email.toLowerCase() }).whereNotNull('newsletter_subscriber_id');
      t.truthy(mail, `an issue to ${email}`);
      t.true(mail!.body_text.includes(`Unsubscribe: ${mail!.list_unsubscribe}`), 'the text names the header’s link');
      return mail!.list_unsubscribe!;
    }),
  );
  // A mail client's RFC 8058 POST: no cookies, no CSRF token.
  const oneClick = await fetch(links[0]!, {
    method: 'POST',
    body: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.is(oneClick.status, 200);
  t.notRegex(await oneClick.text(), /csrf/i);

  const web = new WebClient(env.baseUrl);
  const page = await web.get(new URL(links[1]!).pathname);
  t.is(page.status, 200);
  t.is(page.$('form button').last().text(), 'Unsubscribe');
  const stillIn = await db()('newsletter_subscribers').where({ email: emails[1]!.toLowerCase() }).first();
  t.is(stillIn!.unsubscribed_at, null, 'a GET changes nothing');
  const done = await web.post(new URL(links[1]!).pathname, { 'List-Unsubscribe': 'One-Click' });
  t.is(done.status, 200);
  t.is(done.$('h1').text(), 'You are unsubscribed');
  t.is((await web.post(new URL(links[1]!).pathname, {})).status, 200, 'idempotent');

  for (const email of emails) {
    t.not((await db()('newsletter_subscribers').where({ email: email.toLowerCase() }).first())!.unsubscribed_at, null);
  }
  const forged = await web.post(`/newsletter/unsubscribe/${new URL(links[0]!).pathname.split('/').pop()!.replace(/.$/, 'x')}`, {});
  t.is(forged.status, 400);
  t.regex(forged.$('h1').text(), /does not work/);
  const apiForged = await api(env, 'POST', '/newsletter/unsubscribe', { body: { token: '1.abc' } });
  t.is(apiForged.status, 400);
  t.is(apiForged.body.code, 'newsletter_link_invalid');

  const { monday: later } = await closedWeek(db(), 5, ['Later Larks']);
  await sendIssue(later);
  for (const email of emails) t.is((await issueMailsTo(email.toLowerCase())).length, 1, 'no issue after unsubscribing');
});

test.serial('bad input is a clear 4xx: malformed, too long, unknown site, and the page form', async (t) => {
  const malformed = await subscribe('not-an-address');
  t.is(malformed.status, 400);
  t.is(malformed.body.code, 'validation_failed');
  t.is(malformed.body.errors[0].path, 'email');
  const long = await subscribe(`${'a'.repeat(250)}@example.com`);
  t.is(long.status, 400);
  t.is(long.body.code, 'validation_failed');
  const site = await subscribe(address('site'), { site: 'nowhere' });
  t.is(site.status, 400);
  t.is(site.body.code, 'unknown_site');
  t.is((await api(env, 'POST', '/newsletter/subscribe', { body: { email: address('x'), extra: 1 } })).status, 400);

  const web = new WebClient(env.baseUrl);
  const page = await web.post('/newsletter', { email: 'nope' });
  t.is(page.status, 400);
  t.is(page.$('#f-email').attr('aria-invalid'), 'true');
  t.is(page.$('#f-email').val(), 'nope');
  const ok = await web.post('/newsletter', { email: address('form') });
  t.is(ok.status, 200);
  t.is(ok.$('h1').text(), 'Check your inbox');
  const home = await web.get('/');
  t.is(home.$('form[action="/newsletter"] input[type=email]').length, 1, 'the form on the home page');
  const launches = await web.get('/launches');
  t.is(launches.$('form[action="/newsletter"] input[type=email]').length, 1, 'the form on the launches page');
});

test.serial('signed in: one click with a confirmed email, the mailed link otherwise; off again', async (t) => {
  const confirmed = await env.user();
  await verifyEmail(db(), confirmed.userId);
  const on = await api(env, 'PUT', '/me/newsletter', { key: confirmed.key, body: { subscribed: true } });
  t.is(on.status, 200, JSON.stringify(on.body));
  t.deepEqual(on.body, { status: 'subscribed', email: confirmed.email });
  t.is((await mailsTo(db(), confirmed.email)).length, 0, 'no confirmation mail needed');
  t.is((await api(env, 'GET', '/me/newsletter', { key: confirmed.key })).body.status, 'subscribed');
  const off = await api(env, 'PUT', '/me/newsletter', { key: confirmed.key, body: { subscribed: false } });
  t.is(off.body.status, 'none');

  const unconfirmed = await env.user();
  const pending = await api(env, 'PUT', '/me/newsletter', { key: unconfirmed.key, body: { subscribed: true } });
  t.is(pending.body.status, 'pending');
  t.is((await mailsTo(db(), unconfirmed.email)).length, 1, 'the confirmation mail');
  t.is((await api(env, 'GET', '/me/newsletter?site=nowhere', { key: unconfirmed.key })).status, 400);
});

test.serial('a bounced address is never sent the newsletter again, queued mail included', async (t) => {
  const email = address('bounce');
  await subscribe(email);
  await api(env, 'POST', '/newsletter/confirm', { body: { token: await confirmToken(email) } });
  const { monday } = await closedWeek(db(), 6, ['Bouncy Bears']);
  await sendIssue(monday);
  t.is((await issueMailsTo(email)).length, 1);
  const result = await adminInProcess(env, 'newsletter:bounced', '--email', email.toUpperCase(), '--reason', '550 no such user');
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /marked bounced/);
  t.is((await adminInProcess(env, 'newsletter:bounced', '--email', 'nope')).code, 1);

  const { deliverOutbox } = await import('../../src/mail/deliver.ts');
  const sent: string[] = [];
  const mailer = { send: async (m: { to: string }) => void sent.push(m.to), close() {} };
  await deliverOutbox(db(), mailer, {
    ids: await db()('mail_outbox').where({ to_address: email.toLowerCase() }).whereNotNull('newsletter_subscriber_id').pluck('id'),
  });
  t.false(sent.includes(email.toLowerCase()), 'the queued issue is not sent');
  t.is((await issueMailsTo(email)).length, 0, 'but dropped from the outbox');
  const { monday: later } = await closedWeek(db(), 7, ['Bouncy Later']);
  await sendIssue(later);
  t.is((await issueMailsTo(email)).length, 0, 'none of the next issue');
  t.is((await subscribe(email)).status, 202, 'the same answer');
  t.is((await mailsTo(db(), email)).filter((m) => m.subject.startsWith('Confirm')).length, 1, 'no new confirmation to a bounced address');
});
