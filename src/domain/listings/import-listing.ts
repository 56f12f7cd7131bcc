import type { Db } from '../../db/knex.ts';
import { AppError } from '../../errors/errors.ts';
import { companyKey } from '../company.ts';
import { crawlSite, CrawlError, extractDraft, type CrawlOptions } from '../crawl/index.ts';
import { listingFromDraft } from '../drafts/drafts.ts';
import { withCrawledMedia } from '../media/crawled-media.ts';
import type { MediaStore } from '../media/media-port.ts';
import { isoWeekStart } from '../../workflows/contracts/weeks.ts';
import { alreadyListed, findCompanyListing, insertCompanyListing } from './company-listing.ts';

/**
 * listings:import (how a site team seeds its directory): the website is crawled and drafted the
 * way a draft is (crawlSite, extractDraft), then published at once as a live listing with no
 * owner, which its company can claim. One listing per company and site.
 */
export async function importListing(
  db: Db,
  crawl: CrawlOptions,
  media: MediaStore,
  input: {
    siteId: number;
    url: string;
    baseUrl: string;
    /** The listing goes live in the week holding this instant. */
    now: Date;
    /**
     * A retry of an import that may have committed (the workflow's activity): an ownerless
     * listing of this URL created since then is that import's own, and is returned.
     */
    resumeSince?: Date;
  },
): Promise<{ id: number; slug: string }> {
  const domain = companyKey(input.url);
  const context = { baseUrl: input.baseUrl, callerId: null };
  // Checked before crawling (no crawl for a listed company), and again under the lock at the insert.
  const existing = await findCompanyListing(db, input.siteId, input.url);
  if (existing && input.resumeSince) {
    const own = await db('listings')
      .where({ id: existing.id, owner_id: null, url: input.url })
      .where('created_at', '>=', input.resumeSince)
      .first('id', 'slug');
    if (own) return own;
  }
  if (existing) throw alreadyListed(domain, existing, context);
  let drafted;
  try {
    const crawled = await crawlSite(input.url, crawl);
    const result = { url: crawled.pages[0]?.url ?? input.url, pages: crawled.pages };
    drafted = await withCrawledMedia(extractDraft(result), result, crawl, media);
  } catch (err) {
    if (err instanceof CrawlError) throw new AppError(err.code, err.message);
    throw err;
  }
  // A site without a usable name is listed under its domain; the owner renames it after claiming.
  const fields = { ...drafted.fields, name: drafted.fields.name ?? domain };
  return db.transaction(async (trx) => {
    const id = await insertCompanyListing(
      trx,
      listingFromDraft(fields, drafted.evidence, { siteId: input.siteId, ownerId: null, url: input.url }),
      context,
    );
    const [row] = await trx('listings')
      .where({ id })
      .update({ status: 'live', launch_week: isoWeekStart(input.now), live_at: trx.fn.now() })
      .returning(['id', 'slug']);
    return row;
  });
}
