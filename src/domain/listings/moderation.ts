import { announceListingChange } from '../../db/notify.ts';
import type { Db } from '../../db/knex.ts';
import { pageOf, type Page } from '../../db/pages.ts';
import { conflict, notFound } from '../../errors/errors.ts';
import { tellOwner } from '../launches/owner-notices.ts';
import { saveChanges } from './listing-edits.ts';
import type { Changes, VersionMeta } from './listing-versions.ts';
import type { ListingRow } from './listings.ts';

/** One kept edit of a listing as the site team reviews it. */
export interface StaffEdit {
  id: number;
  listing_id: number;
  listing_name: string;
  listing_slug: string;
  operation: string;
  editor_id: number | null;
  editor_email: string | null;
  source_listing_id: number | null;
  changes: Changes;
  created_at: Date;
}

const EDIT_COLUMNS = [
  'v.id',
  'v.listing_id',
  'l.name as listing_name',
  'l.slug as listing_slug',
  'v.operation',
  'v.editor_id',
  'u.email as editor_email',
  'v.source_listing_id',
  'v.changes',
  'v.created_at',
];

/** A listing by id, or by slug on the site; another site's is not found. */
export async function siteListing(db: Db, siteId: number, idOrSlug: number | string): Promise<ListingRow> {
  const where = typeof idOrSlug === 'number' ? { id: idOrSlug, site_id: siteId } : { slug: idOrSlug.toLowerCase(), site_id: siteId };
  const row: ListingRow | undefined = await db('listings').where(where).first();
  if (!row) throw notFound(`Listing ${typeof idOrSlug === 'number' ? idOrSlug : `"${idOrSlug}"`}`);
  return row;
}

/** The site's listing edits, newest first, of one listing when `listingId` is given. */
export async function siteEdits(
  db: Db,
  siteId: number,
  q: { listingId?: number; page: number; perPage: number },
): Promise<Page<StaffEdit>> {
  const base = () => {
    const query = db('listing_versions as v').join('listings as l', 'l.id', 'v.listing_id').where('l.site_id', siteId);
    if (q.listingId !== undefined) query.where('v.listing_id', q.listingId);
    return query;
  };
  const rows = base()
    .leftJoin('users as u', 'u.id', 'v.editor_id')
    .select(...EDIT_COLUMNS)
    .orderBy('v.id', 'desc');
  return pageOf<StaffEdit>(rows, base(), q.page, q.perPage);
}

/** One edit of the site's listings. */
export async function siteEdit(db: Db, siteId: number, editId: number): Promise<StaffEdit> {
  const row: StaffEdit | undefined = await db('listing_versions as v')
    .join('listings as l', 'l.id', 'v.listing_id')
    .leftJoin('users as u', 'u.id', 'v.editor_id')
    .where({ 'v.id': editId, 'l.site_id': siteId })
    .first(...EDIT_COLUMNS);
  if (!row) throw notFound(`Edit ${editId}`);
  return row;
}

/**
 * Puts the fields of edit `editId` back as they were before it, as a new kept edit (`meta`). Refused
 * when a later edit changed any of the same fields: reverting would silently undo that one too.
 */
export async function revertEdit(
  db: Db,
  siteId: number,
  editId: number,
  meta: VersionMeta,
  inTransaction: (trx: Db, revert: StaffEdit) => Promise<void>,
) {
  return db.transaction(async (trx) => {
    const edit = await siteEdit(trx, siteId, editId);
    const row: ListingRow = (await trx('listings').where({ id: edit.listing_id }).forUpdate().first())!;
    const fields = Object.keys(edit.changes);
    const later: { id: number; changes: Changes }[] = await trx('listing_versions')
      .where('listing_id', edit.listing_id)
      .where('id', '>', editId)
      .whereRaw('jsonb_exists_any(changes, ?::text[])', [fields])
      .orderBy('id')
      .select('id', 'changes');
    if (later.length > 0) throw conflict('edit_superseded', supersededText(editId, fields, later));
    const back: Changes = {};
    for (const [field, { before, after }] of Object.entries(edit.changes)) back[field] = { before: after, after: before };
    await saveChanges(trx, row, back, meta);
    const [created] = await trx('listing_versions').where('listing_id', edit.listing_id).orderBy('id', 'desc').limit(1).select('id');
    const reverted = await siteEdit(trx, siteId, created.id);
    await inTransaction(trx, reverted);
    return { edit, reverted };
  });
}

function supersededText(editId: number, fields: string[], later: { id: number; changes: Changes }[]): string {
  const named = later.map(
    (v) =>
      `edit ${v.id} (${Object.keys(v.changes)
        .filter((f) => fields.includes(f))
        .join(', ')})`,
  );
  return `Edit ${editId} cannot be reverted: a later edit changed the same fields: ${named.join('; ')}.`;
}

/** The site's listings whose name or slug contains `text` (any case), or the unlisted ones. */
export async function findSiteListings(db: Db, siteId: number, q: { text?: string; unlisted?: boolean; limit: number }) {
  const query = db('listings').where('site_id', siteId).orderBy('name').limit(q.limit);
  if (q.unlisted) query.where('status', 'unlisted');
  if (q.text) {
    const like = `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query.where((w) => w.whereILike('name', like).orWhereILike('slug', like));
  }
  return query.select('id', 'slug', 'name', 'status', 'unlisted_reason', 'updated_at');
}

/**
 * Takes a listing off the site (status `unlisted`: every public page, ranking and search reads live
 * listings only; the search change log follows the status by trigger). `byStaff` keeps the reason
 * the owner is told and the status a restore gives back; the badge grace period unlists without one.
 */
export async function unlist(trx: Db, listingId: number, byStaff?: { reason: string; statusBefore: string }): Promise<ListingRow> {
  const staff = byStaff ? { unlisted_reason: byStaff.reason, status_before_unlisted: byStaff.statusBefore } : {};
  const [row] = await trx('listings')
    .where({ id: listingId })
    .update({ status: 'unlisted', ...staff, updated_at: trx.fn.now() })
    .returning('*');
  await announceListingChange(trx, 'listings', [listingId]);
  return row;
}

interface Moderation {
  siteId: number;
  listingId: number;
  reason: string;
  baseUrl: string;
  /** A key unique to this action, so the owner is told once. */
  noticeKey: string;
}

/** Runs in the transaction of the change (the audit row), with the listing before and after it. */
type Done = (trx: Db, before: ListingRow, after: ListingRow) => Promise<void>;

/** The site team unlists a live listing; the owner is told why by mail and on their listing page. */
export async function unlistByStaff(db: Db, m: Moderation, done: Done): Promise<{ before: ListingRow; after: ListingRow }> {
  return db.transaction(async (trx) => {
    const before = await lockedListing(trx, m);
    if (before.status !== 'live')
      throw conflict('listing_not_live', `Listing ${before.id} is ${before.status.replace(/_/g, ' ')}, not live.`);
    const after = await unlist(trx, before.id, { reason: m.reason, statusBefore: before.status });
    await tellOwner(trx, m.baseUrl, before.id, {
      dedupeKey: `staff-unlisted:${m.noticeKey}`,
      subject: 'unlisted by the site team',
      message: `The site team took ${before.name} off the site: ${m.reason}`,
    });
    await done(trx, before, after);
    return { before, after };
  });
}

/** Puts an unlisted listing back on the site, live; the owner is told by mail and in their notifications. */
export async function restoreByStaff(db: Db, m: Moderation, done: Done): Promise<{ before: ListingRow; after: ListingRow }> {
  return db.transaction(async (trx) => {
    const before = await lockedListing(trx, m);
    if (before.status !== 'unlisted')
      throw conflict('listing_not_unlisted', `Listing ${before.id} is ${before.status.replace(/_/g, ' ')}.`);
    const [after] = await trx('listings')
      .where({ id: before.id })
      .update({ status: 'live', unlisted_reason: null, status_before_unlisted: null, updated_at: trx.fn.now() })
      .returning('*');
    await announceListingChange(trx, 'listings', [before.id]);
    await tellOwner(trx, m.baseUrl, before.id, {
      dedupeKey: `staff-restored:${m.noticeKey}`,
      subject: 'back on the site',
      message: `The site team put ${before.name} back on the site: ${m.reason}`,
    });
    await done(trx, before, after);
    return { before, after };
  });
}

async function lockedListing(trx: Db, m: Moderation): Promise<ListingRow> {
  const row: ListingRow | undefined = await trx('listings').where({ id: m.listingId, site_id: m.siteId }).forUpdate().first();
  if (!row) throw notFound(`Listing ${m.listingId}`);
  return row;
}
