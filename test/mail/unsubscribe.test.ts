import test from 'ava';
import { createUser } from '../../src/auth/users.ts';
import { tellOwner } from '../../src/domain/launches/owner-notices.ts';
import { tellTopOwners } from '../../src/domain/ranking/weekly-close.ts';
import { sendDueDigests } from '../../src/domain/updates/digests.ts';
import { tellFollowersBatch } from '../../src/domain/updates/fan-out.ts';
import { deliverOutbox } from '../../src/mail/deliver.ts';
import { queueMail } from '../../src/mail/outbox.ts';
import type { Mailer } from '../../src/mail/smtp.ts';
import type { TestEnv } from '../helpers/env.ts';
import { startMailTestEnv } from '../helpers/mail-env.ts';
import { insertFollowers, verifyEmail } from '../helpers/followers.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import type { ReceivedMail, TestSmtp } from '../helpers/smtp.ts';

// Every stoppable kind through the real SMTP path (outbox → nodemailer → loopback SMTP server):
// the RFC 8058 headers, the link in words, and the one-click POST honoured at once.

let env: TestEnv;
let smtp: TestSmtp;
let mailer: Mailer;
let close: (() => Promise<void>) | undefined;

test.before(async () => {
  ({ env, smtp, mailer, close } = await startMailTestEnv(import.meta.url));
});
test.after.always(() => close?.());

const db = () => env.services.db;
const WINDOW = 3600;

/** Headers unfolded (RFC 5322) and the body decoded from quoted-printable. */
function parse(mail: ReceivedMail): { headers: Map<string, string>; body: string } {
  const [head, ...rest] = mail.raw.split(/\r?\n\r?\n/);
  const headers = new Map<string, string>();
  for (const line of head!.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
  }
  let body = rest.join('\n\n');
  if (/quoted-printable/i.test(headers.get('content-transfer-encoding') ?? '')) {
    body = Buffer.from(
      body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, body };
}

const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));

/** The one mail to `address`, with its one-click URL checked against the body's link. */
function stoppableMailTo(t: import('ava').ExecutionContext, address: string): { url: string; body: string } {
  const mails = mailsTo(address);
  t.is(mails.length, 1, `one mail to ${address}`);
  const { headers, body } = parse(mails[0]!);
  const listUnsubscribe = headers.get('list-unsubscribe') ?? '';
  const match = new RegExp(`^<(${env.baseUrl.replace(/[.]/g, '\\.')}/unsubscribe/[^>]+)>$`).exec(listUnsubscribe);
  t.truthy(match, `List-Unsubscribe: ${listUnsubscribe}`);
  t.is(headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
  const url = match![1]!;
  t.true(body.includes(`Stop these mails: ${url}`), body);
  t.false(/DELETE|\/api\/v1\//.test(body), 'no raw API call in the mail');
  return { url, body };
}

/** The one-click POST a mail client sends: no cookies, no CSRF token. */
const oneClick = (url: string, body = 'List-Unsubscribe=One-Click') =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });

async function postUpdate(listingId: number, title: string): Promise<number> {
  const site = (await db()('listings').where({ id: listingId }).first('site_id'))!.site_id;
  const [row] = await db()('listing_updates')
    .insert({ listing_id: listingId, site_id: site, title, body: `About ${title}.`, published_at: db().raw("now() + interval '1 second'") })
    .returning('id');
  return row!.id;
}

async function fanOut(updateId: number) {
  const batch = await tellFollowersBatch(
    db(),
    { updateId, afterUserId: 0, limit: 100, mailWindowSeconds: WINDOW, now: new Date() },
    env.baseUrl,
  );
  await deliverOutbox(db(), mailer, { ids: batch.mailIds });
  return batch;
}

const stops = async (userId: number) => db()('mail_stops').where({ user_id: userId }).orderBy('id').select('kind', 'listing_id');

test.serial('a follower update carries the one-click headers and link; one POST without cookies stops the next one at once', async (t) => {
  const listingId = await insertLiveListing(db(), { name: 'Quiet Rockets' });
  const other = await insertLiveListing(db(), { name: 'Loud Rockets' });
  const [follower] = await insertFollowers(db(), listingId, 1);
  await db()('listing_followers').insert({ listing_id: other, user_id: follower!.id });

  await fanOut(await postUpdate(listingId, 'Version 2'));
  const { url, body } = stoppableMailTo(t, follower!.email);
  t.true(body.includes('You get this mail because you follow Quiet Rockets.'));
  t.true(body.includes(`Choose which mails you get: ${env.baseUrl}/account#mail`));

  const res = await oneClick(url);
  t.is(res.status, 200);
  t.regex(await res.text(), /You will not get these mails any more/);
  t.deepEqual(await stops(follower!.id), [{ kind: 'follower_updates', listing_id: listingId }]);
  // The same POST again (a client retrying, the person pressing the button too) changes nothing.
  t.is((await oneClick(url, '')).status, 200);
  t.is((await stops(follower!.id)).length, 1);

  // Honoured at once: the next update of that listing is not mailed, and still notified in the app.
  const next = await postUpdate(listingId, 'Version 3');
  await db()('listing_followers').where({ user_id: follower!.id }).update({ last_mailed_at: null });
  const batch = await fanOut(next);
  t.deepEqual(batch.mailIds, []);
  t.is(mailsTo(follower!.email).length, 1);
  t.truthy(await db()('notifications').where({ user_id: follower!.id, listing_update_id: next }).first());
  // Another listing the person follows still mails: the link stopped one listing's updates.
  await fanOut(await postUpdate(other, 'Loud news'));
  t.is(mailsTo(follower!.email).length, 2);
});

test.serial('a mail queued before the stop is not sent after it', async (t) => {
  const listingId = await insertLiveListing(db(), { name: 'Queued Rockets' });
  const [follower] = await insertFollowers(db(), listingId, 1);
  await fanOut(await postUpdate(listingId, 'First'));
  const { url } = stoppableMailTo(t, follower!.email);

  await db()('listing_followers').where({ user_id: follower!.id }).update({ last_mailed_at: null });
  const queued = await tellFollowersBatch(
    db(),
    { updateId: await postUpdate(listingId, 'Second'), afterUserId: 0, limit: 10, mailWindowSeconds: WINDOW, now: new Date() },
    env.baseUrl,
  );
  t.is(queued.mailIds.length, 1, 'queued, not sent yet');
  t.is((await oneClick(url)).status, 200);
  t.deepEqual(await deliverOutbox(db(), mailer, { ids: queued.mailIds }), { sent: 0, retrying: 0, failed: 0 });
  t.is(mailsTo(follower!.email).length, 1);
  t.is((await db()('mail_outbox').whereIn('id', queued.mailIds)).length, 0, 'the withheld mail is dropped, not left stuck');
});

test.serial('a digest carries the headers, and none comes after its link was used', async (t) => {
  const listingId = await insertLiveListing(db(), { name: 'Digest Rockets' });
  const [follower] = await insertFollowers(db(), listingId, 1);
  // Mailed a moment ago: the update is held for the digest.
  await db()('listing_followers').where({ user_id: follower!.id }).update({ last_mailed_at: db().fn.now() });
  await tellFollowersBatch(
    db(),
    { updateId: await postUpdate(listingId, 'Held'), afterUserId: 0, limit: 10, mailWindowSeconds: WINDOW, now: new Date() },
    env.baseUrl,
  );
  const due = () =>
    db()('listing_followers')
      .where({ user_id: follower!.id })
      .update({ digest_due_at: db().raw("now() - interval '1 second'") });
  await due();
  const digest = await sendDueDigests(db(), listingId, 10, env.baseUrl, new Date());
  await deliverOutbox(db(), mailer, { ids: digest.mailIds });
  const { url, body } = stoppableMailTo(t, follower!.email);
  t.regex(body, /Digest Rockets posted 1 update since our last mail/);

  t.is((await oneClick(url)).status, 200);
  await db()('listing_followers').where({ user_id: follower!.id }).update({ last_mailed_at: db().fn.now() });
  await tellFollowersBatch(
    db(),
    { updateId: await postUpdate(listingId, 'Held again'), afterUserId: 0, limit: 10, mailWindowSeconds: WINDOW, now: new Date() },
    env.baseUrl,
  );
  await due();
  t.deepEqual((await sendDueDigests(db(), listingId, 10, env.baseUrl, new Date())).mailIds, []);
  t.is(mailsTo(follower!.email).length, 1);
});

test.serial('weekly results carry the headers; after the one-click POST the next week tells the owner without a mail', async (t) => {
  const owner = await createUser(db(), `weekly-${Date.now()}@example.com`);
  await verifyEmail(db(), owner.id);
  const listingId = await insertLiveListing(db(), { name: 'Winning Rockets', ownerId: owner.id });
  const site = (await db()('listings').where({ id: listingId }).first('site_id'))!.site_id;
  const week = async (weekStart: string) => {
    await db()('weekly_results').insert({
      site_id: site,
      week: weekStart,
      listing_id: listingId,
      rank: 1,
      score: 5,
      votes_removed: 0,
      votes_discounted: 0,
    });
    const told = await tellTopOwners(db(), site, weekStart, env.baseUrl);
    await deliverOutbox(db(), mailer, { ids: told.mailIds });
    return told;
  };
  await week('2020-01-06');
  const { url } = stoppableMailTo(t, owner.email);
  t.is((await oneClick(url)).status, 200);
  t.deepEqual(await stops(owner.id), [{ kind: 'weekly_results', listing_id: null }]);
  const later = await week('2020-01-13');
  t.is(later.told, 1);
  t.deepEqual(later.mailIds, []);
  t.is(mailsTo(owner.email).length, 1);
  t.is((await db()('notifications').where({ user_id: owner.id, kind: 'weekly_result' })).length, 2, 'told in the app both weeks');
});

test.serial('launch reminders carry the headers and stop at once; transactional mail has no unsubscribe header', async (t) => {
  const owner = await createUser(db(), `launch-${Date.now()}@example.com`);
  await verifyEmail(db(), owner.id);
  const listingId = await insertLiveListing(db(), { name: 'Launching Rockets', ownerId: owner.id });
  const remind = async (key: string) => {
    await db().transaction((trx) =>
      tellOwner(trx, env.baseUrl, listingId, { dedupeKey: key, subject: 'still waiting', message: 'Your launch waits.' }),
    );
    await deliverOutbox(db(), mailer);
  };
  await remind(`reminder-a-${listingId}`);
  const { url } = stoppableMailTo(t, owner.email);
  t.is((await oneClick(url)).status, 200);
  await remind(`reminder-b-${listingId}`);
  t.is(mailsTo(owner.email).length, 1);
  t.is((await db()('notifications').where({ user_id: owner.id, kind: 'launch' })).length, 2, 'the in-app notification stays');

  await queueMail(db(), { to: owner.email, subject: 'Your receipt', text: 'Thanks.' });
  await deliverOutbox(db(), mailer);
  const receipt = mailsTo(owner.email).find((m) => /Subject: Your receipt/.test(m.raw))!;
  t.false(parse(receipt).headers.has('list-unsubscribe'));
  t.false(parse(receipt).headers.has('list-unsubscribe-post'));
});

test.serial('GET shows a button and stops nothing; a forged or altered token is a clear error page and changes nothing', async (t) => {
  const listingId = await insertLiveListing(db(), { name: 'Scanned Rockets' });
  const [follower] = await insertFollowers(db(), listingId, 1);
  await fanOut(await postUpdate(listingId, 'Scanned'));
  const { url } = stoppableMailTo(t, follower!.email);

  const page = await fetch(url);
  t.is(page.status, 200);
  const html = await page.text();
  t.regex(html, /Stop these mails\?/);
  t.regex(html, /mails about the updates of Scanned Rockets/);
  t.regex(html, /<button type="submit">Stop these mails<\/button>/);
  t.deepEqual(await stops(follower!.id), [], 'a GET (a link scanner) stops nothing');

  const token = url.slice(url.lastIndexOf('/') + 1);
  const [user, kind, listing, mac] = decodeURIComponent(token).split('.');
  const forged = [
    `${user}.${kind}.${listing}.${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`, // altered MAC
    `${Number(user) + 1}.${kind}.${listing}.${mac}`, // someone else's
    `${user}.weekly_results.0.${mac}`, // another kind
    `${user}.${kind}.${listing}`, // cut short
    'nonsense',
  ];
  for (const bad of forged) {
    const target = `${env.baseUrl}/unsubscribe/${encodeURIComponent(bad)}`;
    for (const res of [await fetch(target), await oneClick(target)]) {
      t.is(res.status, 400, bad);
      t.regex(await res.text(), /This unsubscribe link does not work[\s\S]*nothing was stopped/, bad);
    }
  }
  t.is((await db()('mail_stops')).filter((s) => s.user_id === follower!.id || s.user_id === follower!.id + 1).length, 0);

  // The public operation behind the POST refuses the same way over REST.
  const rest = await fetch(`${env.baseUrl}/api/v1/mail/unsubscribe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: forged[0] }),
  });
  t.is(rest.status, 400);
  t.is(((await rest.json()) as { code: string }).code, 'unsubscribe_link_invalid');
});
