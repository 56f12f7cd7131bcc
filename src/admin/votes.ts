import type { Db } from '../db/knex.ts';
import { removedVotes, voidVotes } from '../domain/ranking/voided-votes.ts';
import { badRequest, notFound } from '../errors.ts';

export const VOTES_USAGE = `  npm run admin -- votes:void --listing N --reason R [--user ID|EMAIL]   (removes votes for fraud; shown publicly with the reason)`;

/** parseArgs options of the votes:* commands. */
export const VOTE_OPTIONS = {
  listing: { type: 'string' },
  reason: { type: 'string' },
  user: { type: 'string' },
} as const;

export interface VoteFlags {
  listing?: string;
  reason?: string;
  user?: string;
}

/** Runs a `votes:*` command; returns null for other commands. Bad input throws an AppError (exit 1). */
export async function runVoteCommand(db: Db, command: string | undefined, flags: VoteFlags): Promise<number | null> {
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
