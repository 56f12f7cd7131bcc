import test from 'ava';
import { parseVmRssKb } from '../../bench/loadtest/memory.ts';
import { expectedVotes, voteMismatches, type VoteEvent } from '../../bench/loadtest/vote-tally.ts';

/** The launch-day load test's pure helpers: votes expected from the accepted votes and unvotes, and a process's VmRSS. */

const vote = (listingId: number, userId: number, change: 1 | -1 = 1): VoteEvent => ({ listingId, userId, change });

test('votes expected per listing: casts minus unvotes, a repeated vote or an unvote without a vote changes nothing', (t) => {
  const expected = expectedVotes([
    vote(1, 10),
    vote(1, 11),
    vote(1, 10), // twice: still one
    vote(2, 10),
    vote(1, 11, -1),
    vote(2, 12, -1), // no vote to take back
    vote(1, 11), // cast again after taking it back
    vote(3, 10),
    vote(3, 10, -1),
  ]);
  t.deepEqual(Object.fromEntries(expected), { 1: 2, 2: 1, 3: 0 });
});

test('mismatches: a listing counted other than expected, one counted but never voted on, and the slack of requests in doubt', (t) => {
  const expected = new Map([
    [1, 2],
    [2, 1],
    [3, 0],
  ]);
  t.deepEqual(voteMismatches(expected, new Map(expected)), []);
  t.deepEqual(
    voteMismatches(
      expected,
      new Map([
        [1, 3],
        [2, 1],
        [4, 1],
      ]),
    ),
    [
      { listingId: 1, expected: 2, counted: 3 },
      { listingId: 4, expected: 0, counted: 1 },
    ],
  );
  t.deepEqual(voteMismatches(expected, new Map([[1, 1]]), new Map([[1, 1]])), [{ listingId: 2, expected: 1, counted: 0 }]);
});

test('VmRSS from /proc/<pid>/status, null without the line', (t) => {
  t.is(parseVmRssKb('Name:\tnode\nVmPeak:\t 900000 kB\nVmRSS:\t  412345 kB\nRssAnon:\t 300000 kB\n'), 412345);
  t.is(parseVmRssKb('Name:\tnode\nState:\tZ (zombie)\n'), null);
});
