import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createNotificationMailActivities } from '../../src/activities/notification-mail.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { deliverOutbox } from '../../src/mail/deliver.ts';
import { createMailer, type Mailer } from '../../src/mail/smtp.ts';
import { seasonedAccount } from '../helpers/comments.ts';
import { ALL_SCOPES, api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { eventually } from '../helpers/eventually.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { WebClient } from '../helpers/web.ts';

// Replies and comments tell people: notifications in the post's transaction, an hourly mail per
// person (the clock is moved past the window and the batch's activity called, as its workflow
// would), read marks over REST, MCP and the page, and the owner's webhook comment.created.

const clock = new ManualClock(new Date());
const HOUR = 3_600_000;
const PASSWORD = 'notification test password';
let env: TestEnv;
let smtp: TestSmtp;
let mailer: Mailer;
let parity: ReturnType<typeof mcpParity>;

test.before(async () => {
  env = await startTestEnv(
    import.meta.url,
    { COMMENTS_PER_ACCOUNT_PER_HOUR: '100', COMMENTS_PER_NETWORK_PER_HOUR: '100000', WORKFLOW_START_SWEEP_MS: '100' },
    { clock },
  );
  smtp = await startTestSmtp();
  mailer = createMailer({
    baseUrl: env.baseUrl,
    mail: { smtpUrl: smtp.url, from: 'Directory <no-reply@example.com>', sweepIntervalMs: 1000 },
  })!;
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  mailer?.close();
  await smtp?.close();
  await env?.close();
});

const db = () => env.services.db;
let people = 0;
async function person() {
  const email = `talker-${++people}-${Date.now()}@example.com`;
  const user = await createVerifiedUser(db(), email, PASSWORD);
  await seasonedAccount(db(), user.id);
  const { key } = await createApiKey(db(), user.id, 'test', ALL_SCOPES);
  return { userId: user.id, key, email };
}
const live = (ownerId: number, name: string) =>
  insertLiveListing(db(), { name, ownerId, url: `https://${name.toLowerCase().replace(/\W+/g, '-')}.example.com/` });
const comment = async (key: string, listingId: number, body: string) => {
  const res = await api(env, 'POST', `/listings/${listingId}/comments`, { key, body: { body } });
  if (res.status !== 201) throw new Error(`post_comment ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as number;
};
const reply = async (key: string, parentId: number, body: string) => {
  const res = await api(env, 'POST', `/comments/${parentId}/replies`, { key, body: { body } });
  if (res.status !== 201) throw new Error(`reply_comment ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as number;
};
const notifications = async (key: string) => (await api(env, 'GET', '/me/notifications', { key })).body;
const activities = () => createNotificationMailActivities({ db: db(), config: env.services.config, clock });

/** Sends the batch as its workflow does once due: the activity, then delivery over SMTP. */
async function mailBatch(userId: number) {
  const result = await activities().sendNotificationMail(userId);
  if (result.mailIds.length) await deliverOutbox(db(), mailer, { ids: result.mailIds, limit: result.mailIds.length });
  return result;
}
const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));
const header = (raw: string, name: string) => new RegExp(`^${name}: *(.*)$`, 'im').exec(raw.replace(/\r?\n[ \t]+/g, ' '))?.[1];

test.serial(
  'a reply notifies the comment’s author; a second reply within the hour joins the same mail, with both unsubscribe headers',
  async (t) => {
    const maker = await person();
    const visitor = await person();
    const other = await person();
    const listingId = await live(maker.userId, 'Notice Rockets');
    const asked = await comment(visitor.key, listingId, 'Does it work offline?');

    // The maker hears of the new comment on their listing; the visitor's own comment tells the visitor nothing.
    const makerList = await notifications(maker.key);
    t.like(makerList.items[0], { kind: 'listing_comment', read: false, listing: { id: listingId }, comment: { id: asked } });
    t.is((await notifications(visitor.key)).total, 0);

    await reply(maker.key, asked, 'Yes, fully offline.');
    const list = await notifications(visitor.key);
    t.is(list.total, 1);
    t.like(list.items[0], { kind: 'comment_reply', read: false, body: 'Yes, fully offline.' });
    t.true(list.items[0].comment.url.endsWith(`#comment-${list.items[0].comment.id}`));

    // Within the window nothing is mailed yet; a second reply joins the pending batch.
    clock.advance(10 * 60_000);
    t.deepEqual((await mailBatch(visitor.userId)).mailIds, []);
    await reply(other.key, asked, 'Works on the train for me.');
    const starts = await db()('workflow_starts').where('workflow_id', 'like', `notification-mail:${visitor.userId}:%`).count({ n: '*' });
    t.true(Number(starts[0]!.n) <= 1, 'one batch, one start (a started one is removed from the table)');

    clock.advance(HOUR);
    const sent = await mailBatch(visitor.userId);
    t.is(sent.mailIds.length, 1);
    const mails = mailsTo(visitor.email);
    t.is(mails.length, 1, 'both replies in one mail');
    t.regex(mails[0]!.raw, /Yes, fully offline\./);
    t.regex(mails[0]!.raw, /Works on the train for me\./);
    t.regex(header(mails[0]!.raw, 'List-Unsubscribe') ?? '', /^<http:\/\/.+\/unsubscribe\/[^>]+>$/);
    t.is(header(mails[0]!.raw, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
    const row = await db()('mail_outbox').whereIn('id', sent.mailIds).first('mail_kind');
    t.is(row!.mail_kind, 'comment_replies');

    // Called again (a retried activity): nothing more.
    t.deepEqual((await mailBatch(visitor.userId)).mailIds, []);
    t.is(mailsTo(visitor.email).length, 1);
  },
);

test.serial('a switched-off kind sends no mail but keeps the notification', async (t) => {
  const maker = await person();
  const visitor = await person();
  const listingId = await live(maker.userId, 'Quiet Rockets');
  const off = await api(env, 'PATCH', '/me/mail-preferences', { key: maker.key, body: { listing_comments: false } });
  t.is(off.status, 200, JSON.stringify(off.body));
  t.true(off.body.kinds.some((k: { kind: string; receiving: boolean }) => k.kind === 'listing_comments' && !k.receiving));

  await comment(visitor.key, listingId, 'Is there a free plan?');
  t.is((await notifications(maker.key)).items[0].kind, 'listing_comment');
  clock.advance(2 * HOUR);
  t.deepEqual((await mailBatch(maker.userId)).mailIds, []);
  t.is(mailsTo(maker.email).length, 0);
  t.is(await db()('notification_mail_batches').where({ user_id: maker.userId }).first(), undefined, 'no batch opened');
});

test.serial('unread count in the header; mark read and mark all read over REST, MCP and the page; others’ ids are ignored', async (t) => {
  const maker = await person();
  const visitor = await person();
  const stranger = await person();
  const listingId = await live(maker.userId, 'Read Rockets');
  for (const text of ['First question?', 'Second question?', 'Third question?', 'Fourth question?'])
    await comment(visitor.key, listingId, text);
  await comment(maker.key, await live(stranger.userId, 'Stranger Rockets'), 'A question from the maker?');
  const mine = (await notifications(maker.key)).items.map((n: { id: number }) => n.id);
  const theirs = (await notifications(stranger.key)).items[0].id as number;
  t.is(mine.length, 4);

  const web = new WebClient(env.baseUrl);
  t.is((await web.signIn(maker.email, PASSWORD)).status, 303);
  const header = async () => (await web.get('/account')).$('header a[href="/account/notifications"]');
  t.is((await header()).attr('data-unread'), '4');
  t.regex((await header()).text(), /Notifications\s*4 unread/);

  // REST: one of mine and the stranger's and an unknown id.
  const rest = await api(env, 'POST', '/me/notifications/read', { key: maker.key, body: { ids: [mine[0], theirs, 999999999] } });
  t.is(rest.status, 200, JSON.stringify(rest.body));
  t.deepEqual(rest.body, { marked: [mine[0]], not_found: [theirs, 999999999], unread: 3 });
  t.is((await notifications(stranger.key)).items[0].read, false, 'the stranger’s stays unread');
  const bad = await api(env, 'POST', '/me/notifications/read', { key: maker.key, body: { ids: [] } });
  t.like(bad, { status: 400, body: { code: 'validation_failed' } });

  // MCP: the same tool.
  const viaMcp = await parity.viaMcp(maker.key, 'mark_notifications_read', { ids: [mine[1]] });
  t.deepEqual(viaMcp, { error: false, body: { marked: [mine[1]], not_found: [], unread: 2 } });

  // The page: one item's form, then "Mark all read".
  const page = await web.get('/account/notifications');
  const form = page.$(`article[data-notification="${mine[2]}"] form`);
  t.is(form.attr('action'), '/account/notifications/read');
  const _csrf = String(form.find('input[name=_csrf]').val());
  const one = await web.post('/account/notifications/read', { _csrf, id: String(mine[2]), page: '1' });
  t.is(one.status, 303);
  t.is((await header()).attr('data-unread'), '1');
  const forged = await web.post('/account/notifications/read-all', { _csrf: 'forged' });
  t.is(forged.status, 403);
  const all = await web.post('/account/notifications/read-all', { _csrf });
  t.is(all.status, 303);
  t.is((await header()).attr('data-unread'), '0');
  t.true((await notifications(maker.key)).items.every((n: { read: boolean }) => n.read));
  t.like(await parity.viaMcp(maker.key, 'mark_all_notifications_read', {}), { error: false, body: { marked: 0, unread: 0 } });

  // Visitors' pages carry no count.
  const visitorPage = await fetch(`${env.baseUrl}/listings/${(await db()('listings').where({ id: listingId }).first('slug'))!.slug}`).then(
    (r) => r.text(),
  );
  t.false(visitorPage.includes('data-unread'));
});

test.serial('the owner’s endpoint gets comment.created, signed', async (t) => {
  await env.startWorkers();
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const maker = await person();
  const visitor = await person();
  const listingId = await live(maker.userId, 'Hook Rockets');
  const created = await api(env, 'POST', '/me/webhooks', { key: maker.key, body: { url: receiver.url, events: ['comment.created'] } });
  t.is(created.status, 201, JSON.stringify(created.body));
  const id = await comment(visitor.key, listingId, 'Will you ship a Linux build?');
  await eventually('the delivery', () => receiver.received.length >= 1);
  const r = receiver.received[0]!;
  const payload = new Webhook(created.body.secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as { type: string; data: any };
  t.is(payload.type, 'comment.created');
  t.like(payload.data, {
    listing: { id: listingId },
    comment: { id, parent_id: null, body: 'Will you ship a Linux build?', author: { maker: false } },
  });
});
