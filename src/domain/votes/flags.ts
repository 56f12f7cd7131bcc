import type { Db } from '../../db/knex.ts';
import { conflict, notFound } from '../../errors/errors.ts';
import { voidVotes } from '../ranking/voided-votes.ts';
import { applyDiscounts } from './scan.ts';
import type { VoteFlagTableRow } from '../tables.ts';

/** A detector's flag as the site team reviews it. */
export interface VoteFlag extends VoteFlagTableRow {
  slug: string;
}

export interface FlagQuery {
  /** Monday of the launch week. */
  weekStart?: string;
  listingId?: number;
  /** The site of the flagged listings. */
  siteId?: number;
  /** `discounted`: not reviewed yet. */
  state?: string;
  limit?: number;
}

/** Flags, newest week first, then by listing and account. */
export async function listFlags(db: Db, query: FlagQuery = {}): Promise<VoteFlag[]> {
  const q = db('vote_flags as f')
    .join('listings as l', 'l.id', 'f.listing_id')
    .orderBy([{ column: 'f.week', order: 'desc' }, 'f.listing_id', 'f.user_id', 'f.id'])
    .limit(query.limit ?? 500)
    .select('f.id', 'f.listing_id', 'l.slug', 'f.user_id', 'f.week', 'f.reason', 'f.detail', 'f.state', 'f.flagged_at', 'f.decided_at');
  if (query.weekStart) q.where('f.week', query.weekStart);
  if (query.listingId !== undefined) q.where('f.listing_id', query.listingId);
  if (query.siteId !== undefined) q.where('l.site_id', query.siteId);
  if (query.state !== undefined) q.where('f.state', query.state);
  return q;
}

/**
 * The site team's decision on a flag. `keep`: the vote counts again (later scans leave it alone).
 * `void`: the vote is removed like `votes:void`, with the flag's reason, shown publicly. A voided
 * flag is final (its vote is gone).
 */
export async function decideFlag(db: Db, id: number, decision: 'keep' | 'void'): Promise<VoteFlag> {
  const flag = await db('vote_flags as f').join('listings as l', 'l.id', 'f.listing_id').where('f.id', id).first('f.*', 'l.site_id');
  if (!flag) throw notFound(`Flag ${id}`);
  if (flag.state === 'voided') throw conflict('flag_decided', `Flag ${id} was decided already: its vote was voided.`);
  if (decision === 'keep') {
    await db('vote_flags').where({ id }).update({ state: 'kept', decided_at: db.fn.now() });
    await applyDiscounts(db, flag.site_id, flag.week, flag.listing_id);
  } else {
    if (flag.user_id !== null) await voidVotes(db, { listingId: flag.listing_id, userId: flag.user_id, reason: flag.reason });
    await db('vote_flags').where({ id }).update({ state: 'voided', decided_at: db.fn.now() });
  }
  const [updated]: VoteFlag[] = await listFlagsById(db, id);
  return updated;
}

/** One flag of the site's listings. */
export async function readFlag(db: Db, id: number, siteId: number): Promise<VoteFlag> {
  const [flag] = await listFlagsById(db, id).where('l.site_id', siteId);
  if (!flag) throw notFound(`Flag ${id}`);
  return flag;
}

const listFlagsById = (db: Db, id: number) =>
  db('vote_flags as f')
    .join('listings as l', 'l.id', 'f.listing_id')
    .where('f.id', id)
    .select('f.id', 'f.listing_id', 'l.slug', 'f.user_id', 'f.week', 'f.reason', 'f.detail', 'f.state', 'f.flagged_at', 'f.decided_at');
