import { announceListingChange } from '../../db/notify.ts';
import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import type { CompanyFacts } from '../fields.ts';
import type { Site } from '../sites/sites.ts';
import { diffFields, recordVersion, type Changes, type VersionMeta } from './listing-versions.ts';
import type { ListingRow } from './listings.ts';

/** This site's texts: the fields that `apply_to` copies to the company's listings on other sites. */
export const SITE_FIELDS = ['headline', 'summary', 'seo_title', 'seo_description'] as const;

/** Editable fields stored in their own column; every other key of `fields` is a company fact. */
const COLUMN_FIELDS = new Set<string>(['name', 'contact_email', ...SITE_FIELDS]);

/** Fields replaced as a whole list. */
const LIST_FIELDS = new Set(['socials', 'faqs', 'categories']);

/** One edit of a listing; absent parts stay as they are, null clears a field. */
export interface ListingEdit {
  fields: Record<string, unknown>;
  /** Replaces all social links. */
  socials?: Record<string, string>;
  /** Replaces all FAQs. */
  faqs?: { question: string; answer: string }[];
  /** Replaces the categories (known slugs, no repeats). */
  categories?: string[];
}

/** What apply_to did on one listing (or site without a listing) of the company. */
export interface AppliedEntry {
  site: string;
  listing_id: number | null;
  status: 'updated' | 'unchanged' | 'no_listing' | 'not_owned';
  fields: string[];
}

export interface EditRequest {
  ownerId: number;
  listingId: number;
  edit: ListingEdit;
  /** Sites whose listings of the same company receive the sent site fields; null: this listing only. */
  applyTo: Site[] | null;
  meta: VersionMeta;
}

/**
 * Edits one of the owner's listings and, with apply_to, copies the site fields sent in this call
 * to the owner's listings of the same company (registrable domain) on the given sites. One
 * transaction: either every listing changes and every version is stored, or nothing is.
 */
export async function editListing(db: Db, request: EditRequest): Promise<{ listing: ListingRow; applied: AppliedEntry[] }> {
  const { ownerId, listingId, edit, applyTo, meta } = request;
  return db.transaction(async (trx) => {
    const source: ListingRow | undefined = await trx('listings').where({ id: listingId, owner_id: ownerId }).first();
    if (!source) throw notFound(`Listing ${listingId}`);
    const rows = await lockCompanyListings(trx, source, applyTo);
    const locked = rows.find((r) => r.id === listingId);
    if (!locked || locked.owner_id !== ownerId) throw notFound(`Listing ${listingId}`);

    const listing = await writeEdit(trx, locked, edit, meta);
    if (!applyTo) {
      await announceListingChange(trx, 'listing', [listingId]);
      return { listing, applied: [] };
    }

    const travelling = pickSiteFields(edit.fields);
    const applied: AppliedEntry[] = [];
    for (const site of applyTo) {
      const onSite = rows.filter((r) => r.site_id === site.id);
      if (onSite.length === 0) applied.push({ site: site.key, listing_id: null, status: 'no_listing', fields: [] });
      for (const row of onSite) {
        if (row.owner_id !== ownerId) {
          // Another owner's listing of the same company is left alone, and its id is not disclosed.
          applied.push({ site: site.key, listing_id: null, status: 'not_owned', fields: [] });
          continue;
        }
        const changed =
          row.id === listingId
            ? Object.keys(diffFields(fieldsOf(locked), travelling))
            : Object.keys(await applySiteFields(trx, row, travelling, { ...meta, sourceListingId: listingId }));
        applied.push({ site: site.key, listing_id: row.id, status: changed.length ? 'updated' : 'unchanged', fields: changed });
      }
    }
    const updated = applied.flatMap((a) => (a.status === 'updated' && a.listing_id !== listingId ? [a.listing_id!] : []));
    await announceListingChange(trx, 'listing', [listingId, ...updated]);
    return { listing, applied };
  });
}

/**
 * Locks the edited listing and the company's listings on the apply_to sites in one statement,
 * ordered by id, so two concurrent apply_to edits of one company cannot deadlock.
 */
async function lockCompanyListings(trx: Db, source: ListingRow, applyTo: Site[] | null): Promise<ListingRow[]> {
  const query = trx('listings').where('id', source.id);
  if (applyTo && applyTo.length) {
    query.orWhere((q) =>
      q.where('company_domain', source.company_domain).whereIn(
        'site_id',
        applyTo.map((s) => s.id),
      ),
    );
  }
  return await query.orderBy('id').forUpdate();
}

function pickSiteFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(SITE_FIELDS.filter((f) => f in fields).map((f) => [f, blankToNull(fields[f])]));
}

async function applySiteFields(trx: Db, row: ListingRow, fields: Record<string, unknown>, meta: VersionMeta): Promise<Changes> {
  const changes = diffFields(fieldsOf(row), fields);
  await saveChanges(trx, row, changes, meta);
  return changes;
}

/** Writes the edit to the listing; returns the row as stored afterwards. */
async function writeEdit(trx: Db, row: ListingRow, edit: ListingEdit, meta: VersionMeta): Promise<ListingRow> {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(edit.fields)) {
    before[field] = COLUMN_FIELDS.has(field) ? row[field as keyof ListingRow] : row.facts[field as keyof CompanyFacts];
    after[field] = blankToNull(value);
  }
  if (edit.socials !== undefined) [before.socials, after.socials] = [row.socials, edit.socials];
  if (edit.faqs !== undefined) [before.faqs, after.faqs] = [row.faqs, edit.faqs];
  if (edit.categories !== undefined) [before.categories, after.categories] = [row.categories, [...new Set(edit.categories)]];
  return saveChanges(trx, row, diffFields(before, after), meta);
}

/** Stores the changed fields and their version; an edit that changes nothing writes nothing. */
export async function saveChanges(trx: Db, row: ListingRow, changes: Changes, meta: VersionMeta): Promise<ListingRow> {
  if (Object.keys(changes).length === 0) return row;
  const update: Record<string, unknown> = {};
  // Facts are edited key by key from validated input; the stored object is a plain JSON map.
  const facts: Record<string, unknown> = { ...row.facts };
  for (const [field, { after }] of Object.entries(changes)) {
    if (field === 'socials' || field === 'faqs') update[field] = JSON.stringify(after);
    else if (field === 'categories') update.categories = after;
    else if (COLUMN_FIELDS.has(field)) update[field] = after;
    else if (after === null) delete facts[field];
    else facts[field] = after;
  }
  const factsChanged = Object.keys(changes).some((f) => !COLUMN_FIELDS.has(f) && !LIST_FIELDS.has(f));
  if (factsChanged) update.facts = JSON.stringify(facts);
  const [stored] = await trx('listings')
    .where({ id: row.id })
    .update({ ...update, updated_at: trx.fn.now() })
    .returning('*');
  await recordVersion(trx, row.id, changes, meta);
  return stored;
}

const fieldsOf = (row: ListingRow) => row as unknown as Record<string, unknown>;

/** An empty text or list clears the field, the same as null. */
function blankToNull(value: unknown): unknown {
  if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return null;
  return value;
}
