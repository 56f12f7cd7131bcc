/** The launch-day checks besides the load test's own: votes counted against votes cast, comments kept. */
import type { Db } from '../../src/db/knex.ts';
import type { LaunchAccepted } from './launch-day.ts';
import type { Check } from './reconcile.ts';
import { expectedVotes, voteMismatches } from './vote-tally.ts';

export async function launchChecks(db: Db, listingIds: number[], accepted: LaunchAccepted): Promise<Check[]> {
  const rows: { id: number; votes: number; week_votes: number; stored: number; counted: number }[] = await db('listings as l')
    .whereIn('l.id', listingIds)
    .select(
      'l.id',
      'l.votes',
      'l.week_votes',
      db.raw('(SELECT count(*)::int FROM votes v WHERE v.listing_id = l.id) AS stored'),
      db.raw('(SELECT count(*)::int FROM votes v WHERE v.listing_id = l.id AND v.discount_reason IS NULL) AS counted'),
    );
  const casts = accepted.votes.filter((v) => v.change === 1).length;
  const expected = expectedVotes(accepted.votes);
  const slack = new Map<number, number>();
  for (const id of accepted.votesInDoubt) slack.set(id, (slack.get(id) ?? 0) + 1);
  const stored = voteMismatches(expected, new Map(rows.map((r) => [r.id, r.stored])), slack);
  const total = (f: (r: (typeof rows)[number]) => number) => rows.reduce((sum, r) => sum + f(r), 0);
  // The hourly vote scan may discount votes of look-alike accounts (all from 127.0.0.1): the counters must follow it.
  const counters = rows.filter((r) => r.votes !== r.counted || r.week_votes !== r.counted);
  const present = accepted.comments.length
    ? Number((await db('comments').whereIn('id', accepted.comments).whereNot({ status: 'deleted' }).count({ n: '*' }))[0]!.n)
    : 0;
  return [
    {
      name: 'votes stored per listing = votes cast − unvotes accepted',
      ok: stored.length === 0,
      detail:
        `${casts} votes and ${accepted.votes.length - casts} unvotes accepted on ${rows.length} launches; ` +
        `${[...expected.values()].reduce((a, b) => a + b, 0)} expected, ${total((r) => r.stored)} stored` +
        `${accepted.votesInDoubt.length ? ` (${accepted.votesInDoubt.length} in doubt)` : ''}` +
        (stored.length
          ? `; off: ${stored
              .slice(0, 5)
              .map((m) => `#${m.listingId} ${m.counted}≠${m.expected}`)
              .join(', ')}`
          : ''),
    },
    {
      name: "each launch's votes and week_votes = its votes not discounted",
      ok: counters.length === 0,
      detail:
        `${total((r) => r.votes)} counted, ${total((r) => r.stored - r.counted)} discounted by the vote scan` +
        (counters.length
          ? `; off: ${counters
              .slice(0, 5)
              .map((r) => `#${r.id} ${r.votes}/${r.week_votes}≠${r.counted}`)
              .join(', ')}`
          : ''),
    },
    {
      name: 'accepted comments and replies present',
      ok: present === accepted.comments.length,
      detail: `${present}/${accepted.comments.length}`,
    },
  ];
}
