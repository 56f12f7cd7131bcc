import test from 'ava';
import { isoWeekLabel, isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { adminInProcess } from '../helpers/admin.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { buttonShownForVotes, ringVotes } from '../helpers/vote-rings.ts';
import { voteCounts } from '../helpers/votes.ts';

/** The site team's review: votes:scan, votes:flags, votes:flag-decide --keep|--void. */

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const db = () => env.services.db;
const admin = (...args: string[]) => adminInProcess(env, ...args);
const thisWeek = () => isoWeekLabel(isoWeekStart(new Date()));

test.serial('scan, list the flags, keep one (it counts again, and stays kept), void one (removed, shown publicly)', async (t) => {
  const id = await insertLiveListing(db(), { name: 'Reviewed Launch', url: 'https://reviewed.example.com/' });
  const slug = (await db()('listings').where({ id }).first('slug'))!.slug as string;
  await ringVotes(db(), [id], 2, { ageDays: 40, createdMinutesApart: 60 * 24 * 3 });
  const ring = await ringVotes(db(), [id], 8, { network: () => 'review-net' });
  await buttonShownForVotes(db(), id);

  const empty = await admin('votes:flags', '--listing', String(id));
  t.is(empty.code, 0, empty.stderr);
  t.is(empty.stdout.trim(), 'no flags');

  const scan = await admin('votes:scan');
  t.is(scan.code, 0, scan.stderr);
  t.regex(
    scan.stdout,
    new RegExp(`main ${thisWeek()}: \\d+ votes scanned, 8 flagged by the detectors \\(8 new, 0 withdrawn\\), 8 discounted`),
  );
  t.deepEqual(await voteCounts(db(), id), { votes: 2, week_votes: 2, rows: 10 });

  const listed = await admin('votes:flags', '--week', thisWeek(), '--listing', String(id));
  t.is(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trim().split('\n');
  t.is(lines.length, 9);
  t.regex(
    lines[0]!,
    new RegExp(
      `^#\\d+\\t${thisWeek()}\\tlisting ${id} \\(${slug}\\)\\tuser ${ring[0]}\\tnetwork_cluster\\tdiscounted\\t8 accounts created within 24 hours`,
    ),
  );
  t.is(lines[8], '8 flags, 8 not reviewed yet');
  const flagIds = lines.slice(0, 8).map((l) => Number(/^#(\d+)/.exec(l)![1]));

  const keep = await admin('votes:flag-decide', '--id', String(flagIds[0]), '--keep');
  t.is(keep.code, 0, keep.stderr);
  t.regex(keep.stdout, /: kept; the vote counts again/);
  t.deepEqual(await voteCounts(db(), id), { votes: 3, week_votes: 3, rows: 10 });
  // The next scan leaves the team's decision alone.
  await admin('votes:scan', '--week', thisWeek());
  t.deepEqual(await voteCounts(db(), id), { votes: 3, week_votes: 3, rows: 10 });

  const voided = await admin('votes:flag-decide', '--id', String(flagIds[1]), '--void');
  t.is(voided.code, 0, voided.stderr);
  t.regex(voided.stdout, /: voided; the vote was removed and is shown with its reason/);
  t.deepEqual(await voteCounts(db(), id), { votes: 3, week_votes: 3, rows: 9 });
  const again = await admin('votes:flag-decide', '--id', String(flagIds[1]), '--keep');
  t.is(again.code, 1);
  t.regex(again.stderr, /was decided already/);

  const audit = await api(env, 'GET', `/listings/${slug}/vote-audit`);
  t.like(audit.body, { votes_cast: 10, votes_counted: 3, votes_discounted: 6, votes_voided: 1 });
  t.deepEqual(audit.body.voided_by_reason, [{ reason: 'network_cluster', count: 1 }]);
  const after = await admin('votes:flags', '--listing', String(id));
  t.regex(after.stdout, /8 flags, 6 not reviewed yet/);
  t.regex(after.stdout, /\tkept\t/);
  t.regex(after.stdout, /\tvoided\t/);
});

test.serial('bad review input exits 1 with a message and changes nothing', async (t) => {
  const before = await db()('vote_flags').orderBy('id').select('id', 'state');
  const cases = [
    ['votes:flag-decide'],
    ['votes:flag-decide', '--id', '1'],
    ['votes:flag-decide', '--id', '1', '--keep', '--void'],
    ['votes:flag-decide', '--id', 'abc', '--keep'],
    ['votes:flag-decide', '--id', '999999', '--void'],
    ['votes:flags', '--week', '2026-48'],
    ['votes:flags', '--week', '2026-W54'],
    ['votes:flags', '--listing', '0'],
    ['votes:scan', '--week', 'last'],
  ];
  for (const args of cases) {
    const res = await admin(...args);
    t.is(res.code, 1, args.join(' '));
    t.truthy(res.stderr.trim(), args.join(' '));
  }
  t.deepEqual(await db()('vote_flags').orderBy('id').select('id', 'state'), before);
});
