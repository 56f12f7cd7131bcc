import type { Db } from '../../db/knex.ts';
import { notFound, unprocessable } from '../../errors/errors.ts';
import { recordVersion, type VersionMeta } from './listing-versions.ts';
import type { ListingRow } from './listings.ts';

/** More than this on one listing is refused: a timeline, not a log. */
export const MAX_MILESTONES = 100;

export interface Milestone {
  id: number;
  date: string;
  title: string;
  description: string | null;
  url: string | null;
}

export interface NewMilestone {
  date: string;
  title: string;
  description?: string | null;
  url?: string | null;
}

const COLUMNS = ['id', 'date', 'title', 'description', 'url'];

/** Milestones show publicly on paid listings or when the milestones section is unlocked. */
export function milestonesArePublic(row: Pick<ListingRow, 'plan' | 'unlocked_sections'>): boolean {
  return row.plan === 'paid' || row.unlocked_sections.includes('milestones');
}

/** A listing's milestones, newest date first. */
export async function listMilestones(db: Db, listingId: number): Promise<Milestone[]> {
  return db('milestones')
    .where({ listing_id: listingId })
    .orderBy([
      { column: 'date', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select(COLUMNS);
}

/** Adds a milestone to one of the owner's listings and records it in the version history. */
export async function addMilestone(db: Db, ownerId: number, listingId: number, input: NewMilestone, meta: VersionMeta): Promise<Milestone> {
  return db.transaction(async (trx) => {
    // The lock serialises adds on one listing so the cap holds under concurrency.
    const listing = await trx('listings').where({ id: listingId, owner_id: ownerId }).forUpdate().first('id');
    if (!listing) throw notFound(`Listing ${listingId}`);
    const [{ count }] = await trx('milestones').where({ listing_id: listingId }).count({ count: '*' });
    if (Number(count) >= MAX_MILESTONES) {
      throw unprocessable('milestone_limit', `A listing has at most ${MAX_MILESTONES} milestones; delete one first.`);
    }
    const [milestone]: Milestone[] = await trx('milestones')
      .insert({
        listing_id: listingId,
        date: input.date,
        title: input.title,
        description: input.description ?? null,
        url: input.url ?? null,
      })
      .returning(COLUMNS);
    await recordVersion(trx, listingId, { milestone: { before: null, after: milestone } }, meta);
    return milestone;
  });
}

/** Deletes a milestone of one of the owner's listings; another listing's milestone is "not found". */
export async function deleteMilestone(db: Db, ownerId: number, listingId: number, milestoneId: number, meta: VersionMeta): Promise<void> {
  await db.transaction(async (trx) => {
    const listing = await trx('listings').where({ id: listingId, owner_id: ownerId }).forUpdate().first('id');
    if (!listing) throw notFound(`Listing ${listingId}`);
    const [removed]: Milestone[] = await trx('milestones').where({ id: milestoneId, listing_id: listingId }).delete().returning(COLUMNS);
    if (!removed) throw notFound(`Milestone ${milestoneId}`);
    await recordVersion(trx, listingId, { milestone: { before: removed, after: null } }, meta);
  });
}
