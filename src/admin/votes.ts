import type { Db } from '../db/knex.ts';
import { removedVotes, voidVotes } from '../domain/ranking/voided-votes.ts';
import { isoWeekLabel, isoWeekMonday, isoWeekStart } from '../workflows/contracts/weeks.ts';
import { readSites } from '../domain/sites/sites.ts';
import { listFlags, type VoteFlag } from '../domain/votes/flags.ts';
import { scanWeek } from '../domain/votes/scan.ts';
import { badRequest, notFound } from '../errors/errors.ts';
import { staffDecideVoteFlagOp } from '../operations/staff-vote-flags.ts';
import { runOperationFromShell, type ShellServices } from './run-operation.ts';

export const VOTES_USAGE = `  npm run admin -- votes:void --listing N --reason R [--user ID|EMAIL]   (removes votes for fraud; shown publicly with the reason)
  npm run admin -- votes:flags [--week W] [--listing N]   (the ring detectors' flags to review; W is an ISO week such as 2026-W48)
  npm run admin -- votes:flag-decide --id N --keep|--void   (keep: the vote counts again; void: removed, shown publicly)
  npm run admin -- votes:scan [--week W]   (runs the ring detectors over the week now; default the current week)`;

/** parseArgs options of the votes:* commands. */
export const VOTE_OPTIONS = {
  listing: { type: 'string' },
  reason: { type: 'string' },
  user: { type: 'string' },
  week: { type: 'string' },
  id: { type: 'string' },
  keep: { type: 'boolean' },
  void: { type: 'boolean' },
} as const;

export interface VoteFlags {
  listing?: string;
  reason?: string;
  user?: string;
  week?: string;
  id?: string;
  keep?: boolean;
  void?: boolean;
}

/** Runs a `votes:*` command; returns null for other commands. Bad input throws an AppError (exit 1). */
export async function runVoteCommand(
  db: Db,
  command: string | undefined,
  flags: VoteFlags,
  services?: ShellServices,
): Promise<number | null> {
  if (command === 'votes:flags') return showFlags(db, flags);
  if (command === 'votes:flag-decide') return decide(db, flags, services);
  if (command === 'votes:scan') return scanNow(db, flags);
  if (command !== 'votes:void') return null;
  if (!flags.listing || flags.reason === undefined) throw badRequest('usage', `--listing and --reason are required.\n${VOTES_USAGE}`);
  const listingId = positiveInt(flags.listing, '--listing');
  const userId = flags.user === undefined ? undefined : await userOf(db, flags.user);
  const { removed, votes } = await voidVotes(db, { listingId, reason: flags.reason, userId });
  const whose = userId === undefined ? '' : ` of user ${userId}`;
  console.log(`removed ${removed} ${removed === 1 ? 'vote' : 'votes'}${whose} from listing ${listingId}; it has ${votes} counted now`);
  const publicCount = await removedVotes(db, listingId);
  console.log(`removed votes shown on the listing: ${publicCount.total}`);
  return 0;
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!/^\d{1,10}$/.test(value) || n < 1 || n > 2_147_483_647)
    throw badRequest('usage', `${flag} must be a positive whole number, not "${value}".`);
  return n;
}

/** A user by id or email address. */
async function userOf(db: Db, value: string): Promise<number> {
  const row = value.includes('@')
    ? await db('users').whereRaw('lower(email) = lower(?)', [value]).first('id')
    : await db('users')
        .where({ id: positiveInt(value, '--user') })
        .first('id');
  if (!row) throw notFound(`User "${value}"`);
  return row.id;
}

/** Monday of `--week` (an ISO week), or of the current week when absent. */
function weekOf(value: string | undefined): string {
  if (value === undefined) return isoWeekStart(new Date());
  const monday = isoWeekMonday(value);
  if (!monday) throw badRequest('usage', `--week must be an ISO week such as 2026-W48, not "${value}".`);
  return monday;
}

async function showFlags(db: Db, flags: VoteFlags): Promise<number> {
  const rows = await listFlags(db, {
    weekStart: flags.week === undefined ? undefined : weekOf(flags.week),
    listingId: flags.listing === undefined ? undefined : positiveInt(flags.listing, '--listing'),
  });
  if (rows.length === 0) {
    console.log('no flags');
    return 0;
  }
  for (const f of rows) console.log(flagLine(f));
  const open = rows.filter((f) => f.state === 'discounted').length;
  console.log(`${rows.length} ${rows.length === 1 ? 'flag' : 'flags'}, ${open} not reviewed yet`);
  return 0;
}

const flagLine = (f: VoteFlag) =>
  `#${f.id}\t${isoWeekLabel(f.week)}\tlisting ${f.listing_id} (${f.slug})\tuser ${f.user_id ?? '-'}\t${f.reason}\t${f.state}\t${f.detail}`;

/** As the console's decision (staff_decide_vote_flag): audited, on the flag's own site. */
async function decide(db: Db, flags: VoteFlags, services: ShellServices | undefined): Promise<number> {
  const usage = `--id and one of --keep or --void are required.\n${VOTES_USAGE}`;
  if (flags.id === undefined || flags.keep === flags.void) throw badRequest('usage', usage);
  if (!services) throw new Error('votes:flag-decide needs the configuration (run it through main.ts)');
  const id = positiveInt(flags.id, '--id');
  const site = await db('vote_flags as f')
    .join('listings as l', 'l.id', 'f.listing_id')
    .join('sites as s', 's.id', 'l.site_id')
    .where('f.id', id)
    .first('s.key');
  if (!site) throw notFound(`Flag ${id}`);
  const flag = await runOperationFromShell(services, staffDecideVoteFlagOp, { id, decision: flags.keep ? 'keep' : 'void' }, site.key);
  const outcome = flag.state === 'kept' ? 'the vote counts again' : 'the vote was removed and is shown with its reason';
  console.log(`flag #${flag.id} (${flag.reason}, listing ${flag.listing_id}): ${flag.state}; ${outcome}`);
  return 0;
}

async function scanNow(db: Db, flags: VoteFlags): Promise<number> {
  const monday = weekOf(flags.week);
  for (const site of await readSites(db)) {
    const r = await scanWeek(db, site.id, monday);
    console.log(
      `${site.key} ${isoWeekLabel(monday)}: ${r.votes} votes scanned, ${r.detected} flagged by the detectors ` +
        `(${r.raised} new, ${r.cleared} withdrawn), ${r.discounted} discounted; ` +
        `${r.comment_votes.votes} comment votes scanned, ${r.comment_votes.discounted} discounted`,
    );
  }
  return 0;
}
