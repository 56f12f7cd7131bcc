import test from 'ava';
import { voteComment, unvoteComment } from '../../../src/domain/comments/votes.ts';
import { scanWeek } from '../../../src/domain/votes/scan.ts';
import { isoWeekStart } from '../../../src/workflows/contracts/weeks.ts';
import { api, request, startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { insertLiveListing } from '../../helpers/listings.ts';

/**
 * The ring detectors judge comment votes in the week's scan: a ring of accounts upvoting the same
 * three comments far beyond chance is discounted (kept, counting 0 in the comments' scores, never
 * deleted), the crowd's votes count, and the public vote audit counts both.
 */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
let batch = 0;

/** `count` confirmed accounts of some months. */
async function accounts(count: number): Promise<number[]> {
  const tag = `${process.pid}-${++batch}`;
  const rows: { id: number }[] = await db()('users')
    .insert(
      Array.from({ length: count }, (_, i) => ({
        email: `comment-voter-${tag}-${i}@example.com`,
        email_verified_at: new Date(),
        created_at: new Date(Date.now() - 90 * 86_400_000),
      })),
    )
    .returning('id');
  return rows.map((r) => r.id);
}

async function comment(listingId: number, authorId: number, body: string): Promise<number> {
  const [row] = await db()('comments')
    .insert({ listing_id: listingId, user_id: authorId, body, body_hash: `h-${body}`, status: 'visible', created_at: new Date() })
    .returning('id');
  return row!.id;
}

const votesOf = async (ids: number[]) =>
  (await db()('comments').whereIn('id', ids).orderBy('id').select('votes')).map((r: { votes: number }) => r.votes);

test('a comment-vote ring is discounted, not deleted, and the audit counts it', async (t) => {
  const listingId = await insertLiveListing(db(), { name: 'Talked About', url: 'https://talked-about.example.com/' });
  const { slug } = (await db()('listings').where({ id: listingId }).first('slug'))!;
  const [author] = await accounts(1);
  const targets = [
    await comment(listingId, author!, 'one'),
    await comment(listingId, author!, 'two'),
    await comment(listingId, author!, 'three'),
  ];
  const popular = await comment(listingId, author!, 'popular');
  // The listing page was seen plenty this hour: the crowd's votes are no burst.
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
  await db()('vote_button_views').insert({ listing_id: listingId, hour, views: 1000 }).onConflict(['listing_id', 'hour']).merge();

  const ring = await accounts(8);
  for (const userId of ring) for (const id of targets) await voteComment(db(), userId, id, new Date());
  for (const userId of await accounts(22)) await voteComment(db(), userId, popular, new Date());
  t.deepEqual(await votesOf([...targets, popular]), [8, 8, 8, 22]);

  const site = (await db()('sites').where({ key: 'main' }).first('id'))!.id;
  const first = await scanWeek(db(), site, isoWeekStart(new Date()));
  t.like(first.comment_votes, { votes: 46, discounted: 24 });
  t.deepEqual(await votesOf([...targets, popular]), [0, 0, 0, 22]);
  const kept = await db()('comment_votes').whereIn('comment_id', targets).select('discount_reason');
  t.is(kept.length, 24, 'the ring’s votes are kept');
  t.true(kept.every((v: { discount_reason: string | null }) => v.discount_reason === 'co_voting_ring'));
  t.deepEqual(await db()('comment_votes').where({ comment_id: popular }).whereNotNull('discount_reason').select('user_id'), []);

  // Scanning again changes nothing; a ring member taking a vote back lowers nothing (it counted 0).
  t.like((await scanWeek(db(), site, isoWeekStart(new Date()))).comment_votes, { votes: 46, discounted: 24 });
  t.deepEqual(await votesOf([...targets, popular]), [0, 0, 0, 22]);
  t.like(await unvoteComment(db(), ring[0]!, targets[0]!), { votes: 0, changed: true });

  const audit = await api(env, 'GET', `/listings/${slug}/vote-audit`);
  t.is(audit.status, 200);
  t.deepEqual(audit.body.comment_votes, {
    cast: 45,
    counted: 22,
    discounted: 23,
    discounted_by_reason: [{ reason: 'co_voting_ring', count: 23 }],
  });
  // The listing's own votes are untouched.
  t.like(audit.body, { votes_cast: 0, votes_discounted: 0 });
  const page = await request(env, 'GET', `/listings/${slug}`);
  t.regex(
    page.text,
    /data-audit-comment-cast>45 votes<\/span> cast, <span data-audit-comment-counted>22<\/span> count and <span data-audit-comment-discounted>23<\/span> were discounted/,
  );
});
