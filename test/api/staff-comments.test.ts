import test from 'ava';
import type { Scope } from '../../src/auth/scopes.ts';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { seasonedAccount } from '../helpers/comments.ts';
import { api, request, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { staffPerson, unique } from '../helpers/staff-cast.ts';

/**
 * The discussion's moderation queue over REST (one call through MCP): held and reported comments
 * for admins and moderators, refused to support (403) and to another site's moderator (404); each
 * decision keeps the listing's comment count exact, closes the reports and is audited; the hidden
 * comment's place on the listing page gives the reason. A listing's maker can report, not delete.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
type Who = 'admin' | 'moderator' | 'support' | 'otherSite';
let cast: Record<Who, { userId: number; key: string }>;

test.before(async () => {
  env = await startTestEnv(import.meta.url, { COMMENTS_PER_NETWORK_PER_HOUR: '100000' }, { clock });
  parity = mcpParity(env);
  const person = (roles: StaffRole[], scopes: Scope[], site: string | null = 'main') => staffPerson(env, clock, roles, scopes, site);
  cast = {
    admin: await person(['admin'], ['staff:listings'], null),
    moderator: await person(['moderator'], ['staff:listings']),
    support: await person(['support'], ['staff:orders']),
    otherSite: await person(['moderator'], ['staff:listings'], 'makers'),
  };
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
const rest = (who: Who, name: string, args: Record<string, unknown>) => parity.viaRest(cast[who].key, name, args);
const countOf = async (id: number) => (await db()('listings').where({ id }).first('comment_count'))!.comment_count;

/** A maker's live listing, a seasoned visitor and a newcomer (whose comments are held). */
async function discussion() {
  const maker = await env.user();
  await seasonedAccount(db(), maker.userId);
  const tag = unique();
  const listingId = await insertLiveListing(db(), { name: `Queued ${tag}`, ownerId: maker.userId, url: `https://q-${tag}.example.com/` });
  const { slug } = (await db()('listings').where({ id: listingId }).first('slug'))!;
  const visitor = await env.user();
  await seasonedAccount(db(), visitor.userId);
  const newcomer = await env.user();
  await db()('users').where({ id: newcomer.userId }).update({ email_verified_at: db().fn.now() });
  const post = async (key: string, body: string) => {
    const res = await api(env, 'POST', `/listings/${listingId}/comments`, { key, body: { body } });
    if (res.status !== 201) throw new Error(res.text);
    return res.body.id as number;
  };
  return { maker, visitor, newcomer, listingId, slug, post };
}

const queueItem = async (who: Who, id: number, list = 'waiting') => {
  const res = await rest(who, 'staff_list_comment_queue', { list, per_page: 100 });
  return (res.body.items as { id: number }[]).find((i) => i.id === id) as any;
};

test('the queue: held and reported comments, oldest first, with text, author, listing and reasons', async (t) => {
  const d = await discussion();
  const held = await d.post(d.newcomer.key, `Hello from a new account ${unique()}`);
  clock.advance(60_000);
  const shown = await d.post(d.visitor.key, `Buy cheap things ${unique()}`);
  for (const [key, reason, note] of [
    [d.maker.key, 'spam', 'An advert'],
    [(await env.user()).key, 'spam', undefined],
    [(await env.user()).key, 'abuse', undefined],
  ] as const) {
    const res = await api(env, 'POST', `/comments/${shown}/reports`, { key, body: { reason, ...(note ? { note } : {}) } });
    t.is(res.status, 201, res.text);
  }
  for (const who of ['admin', 'moderator'] as const) {
    const res = await rest(who, 'staff_list_comment_queue', { per_page: 100 });
    t.is(res.status, 200, res.text);
    const ids = (res.body.items as { id: number }[]).map((i) => i.id);
    t.true(ids.indexOf(held) >= 0 && ids.indexOf(held) < ids.indexOf(shown), 'the held one waits longer');
  }
  t.like(await queueItem('moderator', held), {
    status: 'held',
    listing: { id: d.listingId, slug: d.slug },
    author: { user_id: d.newcomer.userId, maker: false },
    open_reports: 0,
  });
  t.like(await queueItem('moderator', shown), {
    status: 'visible',
    author: { user_id: d.visitor.userId, email: d.visitor.email },
    open_reports: 3,
    reports_by_reason: [
      { reason: 'spam', count: 2 },
      { reason: 'abuse', count: 1 },
    ],
    report_notes: ['An advert'],
  });
  t.regex((await queueItem('admin', shown)).body, /^Buy cheap things/);
  // Support has no moderation scope; another site's moderator sees no such queue here.
  t.like(await rest('support', 'staff_list_comment_queue', {}), { status: 403, body: { code: 'insufficient_scope' } });
  t.like(await rest('otherSite', 'staff_list_comment_queue', {}), { status: 404, body: { code: 'not_found' } });
});

test('approve, hide and restore keep comment_count exact, close reports and are audited', async (t) => {
  const d = await discussion();
  const held = await d.post(d.newcomer.key, `Waiting words ${unique()}`);
  const shown = await d.post(d.visitor.key, `Reported words ${unique()}`);
  t.is((await api(env, 'POST', `/comments/${shown}/reports`, { key: d.maker.key, body: { reason: 'spam' } })).status, 201);
  t.is(await countOf(d.listingId), 1);

  // Held, it told nobody; approved, the listing's maker hears of it as of a comment posted now.
  const told = () => db()('notifications').where({ user_id: d.maker.userId, kind: 'listing_comment', comment_id: held });
  t.is((await told()).length, 0);
  const approved = await rest('moderator', 'staff_moderate_comment', { comment_id: held, action: 'approve' });
  t.like(approved, { status: 200, body: { status: 'visible', comment_count: 2, reports_resolved: 0 } });
  t.is(await countOf(d.listingId), 2);
  t.is((await told()).length, 1);
  t.like(await rest('moderator', 'staff_moderate_comment', { comment_id: held, action: 'approve' }), {
    status: 409,
    body: { code: 'comment_state_conflict' },
  });

  const hidden = await rest('admin', 'staff_moderate_comment', { comment_id: shown, action: 'hide', reason: 'spam' });
  t.like(hidden, { status: 200, body: { status: 'hidden', hidden_reason: 'spam', comment_count: 1, reports_resolved: 1 } });
  t.is(await countOf(d.listingId), 1);
  const report = await db()('comment_reports').where({ comment_id: shown }).first();
  t.truthy(report!.resolved_at);
  t.is(report!.resolved_by, cast.admin.userId);
  t.is(await queueItem('moderator', shown), undefined, 'decided: no longer waiting');
  t.like(await queueItem('moderator', shown, 'hidden'), { status: 'hidden', hidden_reason: 'spam' });

  // The listing page shows the reason where the comment stood, without its text.
  const page = await request(env, 'GET', `/listings/${d.slug}`);
  t.regex(page.text, /removed by the site team: spam/i);
  t.notRegex(page.text, /Reported words/);
  const thread = await api(env, 'GET', `/listings/${d.listingId}/comments`);
  t.like(
    thread.body.items.find((c: { id: number }) => c.id === shown),
    { status: 'hidden', hidden_reason: 'spam', body: '' },
  );

  const restored = await rest('moderator', 'staff_moderate_comment', { comment_id: shown, action: 'restore' });
  t.like(restored, { status: 200, body: { status: 'visible', hidden_reason: null, comment_count: 2 } });
  t.is(await countOf(d.listingId), 2);

  const audit = await db()('staff_audit')
    .where({ operation: 'staff_moderate_comment', target_id: String(shown) })
    .orderBy('id');
  t.is(audit.length, 2);
  t.like(audit[0], { before: { status: 'visible', open_reports: 1 }, after: { status: 'hidden', hidden_reason: 'spam', open_reports: 0 } });
  t.like(audit[1], { before: { status: 'hidden' }, after: { status: 'visible' } });
});

test('dismiss keeps the comment and closes its reports; through MCP too', async (t) => {
  const d = await discussion();
  const shown = await d.post(d.visitor.key, `Fine words ${unique()}`);
  t.is((await api(env, 'POST', `/comments/${shown}/reports`, { key: d.maker.key, body: { reason: 'off_topic' } })).status, 201);
  const mcp = await parity.viaMcp(cast.moderator.key, 'staff_moderate_comment', { comment_id: shown, action: 'dismiss' });
  t.like(mcp, { error: false, body: { status: 'visible', reports_resolved: 1, comment_count: 1 } });
  t.is(await countOf(d.listingId), 1);
  t.is(await queueItem('admin', shown), undefined);
  // Nothing left to dismiss.
  t.like(await rest('admin', 'staff_moderate_comment', { comment_id: shown, action: 'dismiss' }), {
    status: 409,
    body: { code: 'comment_state_conflict' },
  });
});

test('refusals: support 403, another site 404, unknown comment 404, hide without a reason 422', async (t) => {
  const d = await discussion();
  const shown = await d.post(d.visitor.key, `Contested words ${unique()}`);
  t.like(await rest('support', 'staff_moderate_comment', { comment_id: shown, action: 'hide', reason: 'spam' }), { status: 403 });
  t.like(await rest('otherSite', 'staff_moderate_comment', { comment_id: shown, action: 'hide', reason: 'spam' }), {
    status: 404,
    body: { code: 'not_found' },
  });
  t.like(await rest('admin', 'staff_moderate_comment', { comment_id: 1_999_999, action: 'approve' }), {
    status: 404,
    body: { code: 'not_found' },
  });
  for (const reason of [undefined, '   ']) {
    t.like(
      await rest('moderator', 'staff_moderate_comment', { comment_id: shown, action: 'hide', ...(reason === undefined ? {} : { reason }) }),
      {
        status: 422,
        body: { code: 'reason_required' },
      },
    );
  }
  t.like(await rest('moderator', 'staff_moderate_comment', { comment_id: shown, action: 'erase' }), {
    status: 400,
    body: { code: 'validation_failed' },
  });
  t.is((await db()('comments').where({ id: shown }).first('status'))!.status, 'visible');
  t.is(await countOf(d.listingId), 1);
});

test('a listing’s maker can report a comment on it, not delete it', async (t) => {
  const d = await discussion();
  const theirs = await d.post(d.visitor.key, `Critical words ${unique()}`);
  t.like(await api(env, 'DELETE', `/comments/${theirs}`, { key: d.maker.key }), { status: 403, body: { code: 'not_comment_author' } });
  t.like(await parity.viaMcp(d.maker.key, 'delete_comment', { comment_id: theirs }), {
    error: true,
    body: { status: 403, code: 'not_comment_author' },
  });
  t.is((await db()('comments').where({ id: theirs }).first('status'))!.status, 'visible');
  t.is(await countOf(d.listingId), 1);
  t.is((await api(env, 'POST', `/comments/${theirs}/reports`, { key: d.maker.key, body: { reason: 'abuse' } })).status, 201);
  t.like(await queueItem('moderator', theirs), { open_reports: 1 });
});
