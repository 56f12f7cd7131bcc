import { randomBytes } from 'node:crypto';
import test from 'ava';
import { staffPerson } from '../helpers/staff-cast.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { StaffRole } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { mcpParity } from '../helpers/mcp-parity.ts';
import { buttonShownForVotes, ringVotes } from '../helpers/vote-rings.ts';

/**
 * The moderation operations over REST (and MCP for the role matrix): admin (every site) and
 * moderator act; support and people without a role are refused (403); another site's admin gets
 * 404. Then what each does: the diffs, a revert and its 409, unlisting with the owner told, and
 * the vote flags.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let parity: ReturnType<typeof mcpParity>;
test.before(async () => {
  env = await startTestEnv(import.meta.url, {}, { clock });
  parity = mcpParity(env);
});
test.after.always(async () => {
  await parity?.close();
  await env?.close();
});

const db = () => env.services.db;
const person = (roles: StaffRole[], scopes: Scope[], site: string | null = 'main') => staffPerson(env, clock, roles, scopes, site);
const unique = () => randomBytes(4).toString('hex');

type Who = 'admin' | 'moderator' | 'support' | 'nonStaff' | 'otherSite';
let cast: Record<Who, { userId: number; key: string }>;
test.serial.before(async () => {
  cast = {
    admin: await person(['admin'], ['staff:listings', 'staff:orders'], null),
    moderator: await person(['moderator'], ['staff:listings']),
    support: await person(['support'], ['staff:orders']),
    nonStaff: await person([], ['account:read']),
    otherSite: await person(['moderator'], ['staff:listings'], 'makers'),
  };
});

const rest = (who: Who, name: string, args: Record<string, unknown>) => parity.viaRest(cast[who].key, name, args);

/** An owner (confirmed address, so mail goes out) with a live listing. */
async function ownedListing(headline = 'First headline') {
  const owner = await env.user(['listings:write', 'account:read']);
  await db()('users').where({ id: owner.userId }).update({ email_verified_at: new Date() });
  const name = `Moderated ${unique()}`;
  const id = await insertLiveListing(db(), { name, url: `https://m-${unique()}.example/`, ownerId: owner.userId, headline });
  const { slug } = (await db()('listings').where({ id }).first('slug'))!;
  return { owner, id, slug, name };
}

const edit = async (key: string, id: number, fields: Record<string, unknown>) => {
  const res = await api(env, 'PATCH', `/me/listings/${id}`, { key, body: { fields } });
  if (res.status !== 200) throw new Error(res.text);
};

/** Refused the same way for each of `who`, over REST and MCP. */
async function refusedFor(t: any, name: string, args: Record<string, unknown>) {
  const expected: [Who, number, string][] = [
    ['support', 403, 'insufficient_scope'],
    ['nonStaff', 403, 'insufficient_scope'],
    ['otherSite', 404, 'not_found'],
  ];
  for (const [who, status, code] of expected) {
    const res = await rest(who, name, args);
    t.is(res.status, status, `${who} ${name}: ${res.text}`);
    t.is(res.body.code, code, `${who} ${name}`);
  }
  // One through MCP: another site's moderator gets the same problem as a tool error.
  const mcp = await parity.viaMcp(cast.otherSite.key, name, args);
  t.like(mcp, { error: true, body: { status: 404, code: 'not_found' } });
}

test.serial('staff_list_listing_edits: newest first with before/after, paged and by listing; admin and moderator only', async (t) => {
  const { owner, id, slug } = await ownedListing();
  await edit(owner.key, id, { headline: 'Second headline' });
  await edit(owner.key, id, { summary: 'A summary' });
  for (const who of ['admin', 'moderator'] as const) {
    const res = await rest(who, 'staff_list_listing_edits', { listing: slug, per_page: 1 });
    t.is(res.status, 200, res.text);
    t.like(res.body, { page: 1, per_page: 1, total: 2 });
    t.like(res.body.items[0], {
      listing_id: id,
      operation: 'update_my_listing',
      editor_id: owner.userId,
      changes: { summary: { before: null, after: 'A summary' } },
    });
  }
  const second = await rest('moderator', 'staff_list_listing_edits', { listing: String(id), page: 2, per_page: 1 });
  t.deepEqual(second.body.items[0].changes, { headline: { before: 'First headline', after: 'Second headline' } });
  const viaMcp = await parity.viaMcp(cast.moderator.key, 'staff_list_listing_edits', { listing: slug });
  t.like(viaMcp, { error: false, body: { total: 2 } });
  await refusedFor(t, 'staff_list_listing_edits', { listing: slug });
  t.like((await rest('moderator', 'staff_list_listing_edits', { listing: 'no-such-listing' })).body, { status: 404, code: 'not_found' });
  t.like((await rest('moderator', 'staff_list_listing_edits', { per_page: 500 })).body, { status: 400, code: 'validation_failed' });
});

test.serial(
  'staff_revert_listing_edit: puts the fields back as a new edit, audited; 409 naming a later edit of the same field',
  async (t) => {
    const { owner, id } = await ownedListing();
    await edit(owner.key, id, { headline: 'Spam headline', summary: 'Spam summary' });
    await edit(owner.key, id, { founded_year: 2020 });
    const [yearEdit, spamEdit] = await db()('listing_versions').where({ listing_id: id }).orderBy('id', 'desc').pluck('id');
    await refusedFor(t, 'staff_revert_listing_edit', { id: spamEdit });

    const res = await rest('moderator', 'staff_revert_listing_edit', { id: spamEdit });
    t.is(res.status, 200, res.text);
    t.like(res.body.revert, {
      listing_id: id,
      operation: 'staff_revert_listing_edit',
      editor_id: cast.moderator.userId,
      changes: { headline: { before: 'Spam headline', after: 'First headline' }, summary: { before: 'Spam summary', after: null } },
    });
    t.like(await db()('listings').where({ id }).first('headline', 'summary'), { headline: 'First headline', summary: null });
    t.is((await db()('listings').where({ id }).first('facts'))!.facts.founded_year, 2020, 'other fields stay');
    const audit = await db()('staff_audit')
      .where({ operation: 'staff_revert_listing_edit', target_id: String(id) })
      .first();
    t.like(audit, { user_id: cast.moderator.userId, role: 'moderator', target_kind: 'listing' });
    t.deepEqual(audit!.before, { headline: 'Spam headline', summary: 'Spam summary' });
    t.deepEqual(audit!.after, { headline: 'First headline', summary: null });

    // The spam edit is now superseded by the revert itself, which changed the same fields.
    const again = await rest('admin', 'staff_revert_listing_edit', { id: spamEdit });
    t.is(again.status, 409, again.text);
    t.is(again.body.code, 'edit_superseded');
    t.regex(again.body.detail, new RegExp(`edit ${res.body.revert.id} \\((headline, summary|summary, headline)\\)`));
    // An edit of other fields is not superseded by it.
    t.is((await rest('admin', 'staff_revert_listing_edit', { id: yearEdit })).status, 200);
    t.like((await rest('moderator', 'staff_revert_listing_edit', { id: 2_000_000_000 })).body, { status: 404, code: 'not_found' });
  },
);

test.serial('unlist and restore: the owner is told why; the listing leaves the public page and search, and comes back', async (t) => {
  const { owner, id, slug, name } = await ownedListing();
  const found = async () =>
    (await api(env, 'GET', `/listings?q=${encodeURIComponent(name)}`)).body.items.map((l: { slug: string }) => l.slug);
  t.deepEqual(await found(), [slug]);
  await refusedFor(t, 'staff_unlist_listing', { listing: slug, reason: 'spam' });

  const missing = await rest('moderator', 'staff_unlist_listing', { listing: slug });
  t.like(missing.body, { status: 422, code: 'reason_required' });
  t.like((await rest('moderator', 'staff_unlist_listing', { listing: slug, reason: '   ' })).body, {
    status: 422,
    code: 'reason_required',
  });
  t.like((await rest('moderator', 'staff_unlist_listing', { listing: 'gone-nowhere', reason: 'spam' })).body, { status: 404 });
  t.like((await rest('moderator', 'staff_restore_listing', { listing: slug, reason: 'fine' })).body, {
    status: 409,
    code: 'listing_not_unlisted',
  });

  const reason = 'Its website sells counterfeit goods.';
  const res = await rest('moderator', 'staff_unlist_listing', { listing: slug, reason });
  t.is(res.status, 200, res.text);
  t.like(res.body, { id, status: 'unlisted', unlisted_reason: reason });
  t.is((await api(env, 'GET', `/listings/${slug}`)).status, 404);
  t.is((await fetch(`${env.baseUrl}/listings/${slug}`)).status, 404);
  t.deepEqual(await found(), []);
  const mine = await api(env, 'GET', `/me/listings/${id}`, { key: owner.key });
  t.like(mine.body, { status: 'unlisted', unlisted_reason: reason });
  const mail = await db()('mail_outbox').where({ to_address: owner.email }).orderBy('id', 'desc').first();
  t.truthy(mail?.body_text.includes(reason), 'the owner is mailed the reason');
  const audit = await db()('staff_audit')
    .where({ operation: 'staff_unlist_listing', target_id: String(id) })
    .first();
  t.deepEqual(
    [audit!.before, audit!.after],
    [
      { status: 'live', unlisted_reason: null },
      { status: 'unlisted', unlisted_reason: reason },
    ],
  );
  t.like((await rest('admin', 'staff_unlist_listing', { listing: slug, reason })).body, { status: 409, code: 'listing_not_live' });
  const unlisted = await rest('moderator', 'staff_find_listings', { unlisted: true });
  t.true(unlisted.body.items.some((l: { id: number }) => l.id === id));

  const back = await rest('admin', 'staff_restore_listing', { listing: String(id), reason: 'The owner removed the goods.' });
  t.is(back.status, 200, back.text);
  t.like(back.body, { status: 'live', unlisted_reason: null });
  t.is((await api(env, 'GET', `/listings/${slug}`)).status, 200);
  t.is((await fetch(`${env.baseUrl}/listings/${slug}`)).status, 200);
  t.deepEqual(await found(), [slug]);
  t.like((await api(env, 'GET', `/me/listings/${id}`, { key: owner.key })).body, { status: 'live', unlisted_reason: null });
});

test.serial('vote flags: listed and decided by moderators (keep counts again, void is final), also from votes:flag-decide', async (t) => {
  const id = await insertLiveListing(db(), { name: `Flagged ${unique()}`, url: `https://fl-${unique()}.example/` });
  await ringVotes(db(), [id], 2, { ageDays: 40, createdMinutesApart: 60 * 24 * 3 });
  const net = `net-${unique()}`;
  await ringVotes(db(), [id], 8, { network: () => net });
  await buttonShownForVotes(db(), id);
  t.is((await adminInProcess(env, 'votes:scan')).code, 0);
  const flags = await rest('moderator', 'staff_list_vote_flags', { listing: id, state: 'discounted' });
  t.is(flags.status, 200, flags.text);
  t.is(flags.body.items.length, 8);
  const [a, b, c] = flags.body.items.map((f: { id: number }) => f.id);
  await refusedFor(t, 'staff_decide_vote_flag', { id: a, decision: 'keep' });
  await refusedFor(t, 'staff_list_vote_flags', { listing: id });

  const kept = await rest('moderator', 'staff_decide_vote_flag', { id: a, decision: 'keep' });
  t.like(kept.body, { id: a, state: 'kept', listing_id: id });
  const voided = await rest('admin', 'staff_decide_vote_flag', { id: b, decision: 'void' });
  t.like(voided.body, { id: b, state: 'voided' });
  t.like((await rest('admin', 'staff_decide_vote_flag', { id: b, decision: 'keep' })).body, { status: 409, code: 'flag_decided' });
  t.like((await rest('admin', 'staff_decide_vote_flag', { id: 2_000_000_000, decision: 'keep' })).body, { status: 404 });
  t.like((await rest('admin', 'staff_decide_vote_flag', { id: a, decision: 'maybe' })).body, { status: 400 });
  const audit = await db()('staff_audit')
    .where({ operation: 'staff_decide_vote_flag', target_id: String(b) })
    .first();
  t.like(audit, { before: { state: 'discounted' }, after: { state: 'voided' } });

  // The command line decides through the same operation, audited as the command line.
  const cli = await adminInProcess(env, 'votes:flag-decide', '--id', String(c), '--void');
  t.is(cli.code, 0, cli.stderr);
  const cliAudit = await db()('staff_audit')
    .where({ operation: 'staff_decide_vote_flag', target_id: String(c) })
    .first();
  t.like(cliAudit, { user_id: null, role: 'admin' });
});
