import type { Db } from '../../src/db/knex.ts';
import { insertListing } from '../../src/domain/listings/listings.ts';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';

interface ListingFields {
  name: string;
  headline?: string;
  summary?: string;
  site?: string;
  ownerId?: number;
  url?: string;
}

/** Inserts a listing in `draft` (as submit_draft leaves it) on a site (by key); returns its id. */
export async function insertDraftListing(db: Db, fields: ListingFields): Promise<number> {
  const site = await db('sites')
    .where({ key: fields.site ?? 'main' })
    .first('id');
  return db.transaction((trx) =>
    insertListing(trx, {
      site_id: site!.id,
      owner_id: fields.ownerId ?? null,
      name: fields.name,
      url: fields.url ?? `https://${fields.name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.example.com/`,
      headline: fields.headline ?? null,
      summary: fields.summary ?? null,
      seo_title: null,
      seo_description: null,
      logo_url: null,
      image_url: null,
      contact_email: null,
      facts: {},
      socials: {},
      faqs: [],
      categories: [],
      evidence: {},
    }),
  );
}

/**
 * Inserts a live listing on a site (by key). The default url puts every listing under example.com,
 * i.e. one company; pass `url` to make listings of different companies.
 */
export async function insertLiveListing(db: Db, fields: ListingFields & { votes?: number }): Promise<number> {
  const id = await insertDraftListing(db, fields);
  await db('listings')
    .where({ id })
    .update({ status: 'live', launch_week: isoWeekStart(new Date()), votes: fields.votes ?? 0, live_at: db.fn.now() });
  return id;
}
