import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';

/** Before and after of one changed field; null stands for "empty". */
export interface FieldChange {
  before: unknown;
  after: unknown;
}

export type Changes = Record<string, FieldChange>;

export interface VersionMeta {
  /** Null for the admin command line. */
  editorId: number | null;
  operation: string;
  requestId: string;
  /** The listing the edit was made on, when it travelled here by apply_to. */
  sourceListingId?: number;
}

/** The fields whose value differs between `before` and `after` (keys of `after` only). */
export function diffFields(before: Record<string, unknown>, after: Record<string, unknown>): Changes {
  const changes: Changes = {};
  for (const [field, value] of Object.entries(after)) {
    const old = before[field] ?? null;
    if (!isDeepStrictEqual(old, value ?? null)) changes[field] = { before: old, after: value ?? null };
  }
  return changes;
}

/** Stores one version of a listing (inside the caller's transaction); nothing when nothing changed. */
export async function recordVersion(trx: Db, listingId: number, changes: Changes, meta: VersionMeta): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await trx('listing_versions').insert({
    listing_id: listingId,
    editor_id: meta.editorId,
    operation: meta.operation,
    source_listing_id: meta.sourceListingId ?? null,
    request_id: meta.requestId,
    changes: JSON.stringify(changes),
  });
}

interface VersionRow {
  id: number;
  listing_id: number;
  editor_id: number | null;
  operation: string;
  source_listing_id: number | null;
  changes: Changes;
  created_at: Date;
}

/** The owner's view of one version. */
function toVersionView(row: VersionRow) {
  return {
    id: row.id,
    listing_id: row.listing_id,
    operation: row.operation,
    edited_by: row.editor_id,
    via_listing_id: row.source_listing_id,
    changes: row.changes,
    created_at: row.created_at.toISOString(),
  };
}

/** Versions of one listing, newest first; the caller has checked ownership. */
export async function listListingVersions(db: Db, listingId: number, page: number, perPage: number) {
  const base = () => db('listing_versions').where({ listing_id: listingId });
  const found = await pageOf<VersionRow>(base().orderBy('id', 'desc'), base(), page, perPage);
  return { ...found, items: found.items.map(toVersionView) };
}

/** A recent edit with who made it and where, for the site team. */
export interface RecentEdit extends VersionRow {
  listing_name: string;
  listing_slug: string;
  site_key: string;
  editor_email: string | null;
}

/** The latest edits across listings, newest first, optionally of one site. */
export async function recentEdits(db: Db, options: { siteKey?: string; limit: number }): Promise<RecentEdit[]> {
  const query = db('listing_versions as v')
    .join('listings as l', 'l.id', 'v.listing_id')
    .join('sites as s', 's.id', 'l.site_id')
    .leftJoin('users as u', 'u.id', 'v.editor_id')
    .select('v.*', 'l.name as listing_name', 'l.slug as listing_slug', 's.key as site_key', 'u.email as editor_email')
    .orderBy('v.id', 'desc')
    .limit(options.limit);
  if (options.siteKey !== undefined) query.where('s.key', options.siteKey);
  return query;
}
