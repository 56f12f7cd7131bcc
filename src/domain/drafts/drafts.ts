import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { mediaUrl } from '../../lib/paths.ts';
import { conflict, notFound, unprocessable } from '../../errors/errors.ts';
import type { DraftEvidence, DraftFields, CrawledPage } from '../crawl/types.ts';
import { insertCompanyListing } from '../listings/company-listing.ts';
import type { NewListing } from '../listings/listings.ts';
import { HOUR_SECONDS, lockQuota, quotaExceeded, windowUse, type QuotaSettings } from '../quotas/quotas.ts';
import type { WorkflowStartQueue } from '../ports.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';

export type { DraftStatus } from '../fields.ts';
import type { DraftStatus } from '../fields.ts';
import { draftWorkflowId } from '../../workflows/contracts/workflow-ids.ts';

export interface DraftRow {
  id: number;
  owner_id: number;
  site_id: number;
  url: string;
  status: DraftStatus;
  failure_code: string | null;
  failure_reason: string | null;
  fields: DraftFields | null;
  evidence: DraftEvidence;
  listing_id: number | null;
  created_at: Date;
  updated_at: Date;
}

const VIEW_COLUMNS = [
  'id',
  'owner_id',
  'site_id',
  'url',
  'status',
  'failure_code',
  'failure_reason',
  'fields',
  'evidence',
  'listing_id',
  'created_at',
  'updated_at',
] as const;

/** The API view of a draft; the drafted logo and image (`/media/...` paths) as URLs on `baseUrl`. */
export function toDraftView(row: DraftRow, baseUrl: string) {
  return {
    id: row.id,
    url: row.url,
    status: row.status,
    failure: row.failure_code ? { code: row.failure_code, reason: row.failure_reason ?? '' } : null,
    fields: row.fields && {
      ...row.fields,
      logo_url: mediaUrl(baseUrl, row.fields.logo_url),
      image_url: mediaUrl(baseUrl, row.fields.image_url),
    },
    evidence: row.evidence,
    listing_id: row.listing_id,
    workflow_id: draftWorkflowId(row.id),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function insertDraft(db: Db, draft: { ownerId: number; siteId: number; url: string }, now?: Date): Promise<DraftRow> {
  const [row] = await db('drafts')
    .insert({ owner_id: draft.ownerId, site_id: draft.siteId, url: draft.url, status: 'crawling', ...(now ? { created_at: now } : {}) })
    .returning(VIEW_COLUMNS);
  return row;
}

/** A draft still crawling or drafting this long after it was created counts no more as in flight (a lost crawl). */
const IN_FLIGHT_MAX_AGE_SECONDS = HOUR_SECONDS;
/** Retry-After of the in-flight limit: about one crawl's time; the caller polls get_draft meanwhile. */
const IN_FLIGHT_RETRY_SECONDS = 30;

/**
 * insertDraft under the account's quotas (each draft starts a crawl of someone's website): at
 * most `draftsInFlight` crawling or drafting, and `draftsPerHour` created in the last hour.
 * Counted under a per-account lock, so concurrent requests cannot overshoot; 429 otherwise.
 * The crawl `draft:{id}` is recorded with the draft and started once it is committed.
 */
export async function createDraft(
  deps: { db: Db; workflowStarts: WorkflowStartQueue },
  draft: { ownerId: number; siteId: number; siteKey: string; url: string },
  quotas: QuotaSettings,
  now: Date,
): Promise<DraftRow> {
  const { row, startId } = await deps.db.transaction(async (trx) => {
    const row = await insertDraftWithinQuota(trx, draft, quotas, now);
    const start = {
      kind: 'draft' as const,
      workflowId: draftWorkflowId(row.id),
      input: { draftId: row.id, url: draft.url, siteKey: draft.siteKey },
    };
    return { row, startId: await recordWorkflowStart(trx, start, deps.workflowStarts.inlineLeaseMs()) };
  });
  await deps.workflowStarts.startNow([startId]);
  return row;
}

/** Inserts a draft inside the account's quotas (in flight, per hour before `now`), under the quota's lock. */
export async function insertDraftWithinQuota(
  db: Db,
  draft: { ownerId: number; siteId: number; url: string },
  quotas: QuotaSettings,
  now: Date,
): Promise<DraftRow> {
  return db.transaction(async (trx) => {
    await lockQuota(trx, `drafts:${draft.ownerId}`);
    const mine = () => trx('drafts').where({ owner_id: draft.ownerId });
    const crawling = mine().whereIn('status', ['crawling', 'drafting']);
    const inFlight = await windowUse(trx, crawling, 'created_at', {
      seconds: IN_FLIGHT_MAX_AGE_SECONDS,
      limit: quotas.draftsInFlight,
      now,
    });
    if (inFlight.count >= quotas.draftsInFlight) {
      const detail = `You have ${inFlight.count} drafts still crawling (at most ${quotas.draftsInFlight} at a time); wait until one is ready or failed (get_draft).`;
      throw quotaExceeded('drafts_in_flight', quotas.draftsInFlight, null, IN_FLIGHT_RETRY_SECONDS, detail);
    }
    const hourly = await windowUse(trx, mine(), 'created_at', { seconds: HOUR_SECONDS, limit: quotas.draftsPerHour, now });
    if (hourly.count >= quotas.draftsPerHour) {
      const detail = `At most ${quotas.draftsPerHour} drafts per account per hour; try again in ${hourly.retryAfterSeconds} seconds.`;
      throw quotaExceeded('drafts_per_hour', quotas.draftsPerHour, HOUR_SECONDS, hourly.retryAfterSeconds, detail);
    }
    return insertDraft(trx, draft, now);
  });
}

/** One of the caller's drafts; another owner's draft is "not found". */
export async function getOwnedDraft(db: Db, ownerId: number, id: number): Promise<DraftRow> {
  const row = await db('drafts')
    .where({ id, owner_id: ownerId })
    .first(...VIEW_COLUMNS);
  if (!row) throw notFound(`Draft ${id}`);
  return row;
}

/**
 * The caller's drafts, newest first, one page and the total (summaries: no fields or evidence);
 * `open` leaves out the submitted ones (they live on as listings).
 */
export async function listOwnedDrafts(db: Db, ownerId: number, page: number, perPage: number, options: { open?: boolean } = {}) {
  const base = () => {
    const q = db('drafts').where({ owner_id: ownerId });
    return options.open ? q.whereNot({ status: 'submitted' }) : q;
  };
  const newestFirst = base()
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select(VIEW_COLUMNS);
  const found = await pageOf<DraftRow>(newestFirst, base(), page, perPage);
  return { ...found, items: found.items.map(toDraftSummary) };
}

/** A draft in a list: its status and what moves it on, without the drafted content. */
export function toDraftSummary(row: DraftRow) {
  // No media URLs in a summary, so no origin is needed for them.
  const { fields, evidence: _evidence, ...view } = toDraftView(row, '');
  return { ...view, name: fields?.name ?? null };
}

export async function getDraft(db: Db, id: number): Promise<DraftRow> {
  const row = await db('drafts')
    .where({ id })
    .first(...VIEW_COLUMNS);
  if (!row) throw new Error(`draft ${id} does not exist`);
  return row;
}

/** Edits the drafted fields of a ready draft; the website evidence is kept as it was. */
export async function updateDraftFields(db: Db, ownerId: number, id: number, changes: Partial<DraftFields>): Promise<DraftRow> {
  return db.transaction(async (trx) => {
    const row: DraftRow | undefined = await trx('drafts')
      .where({ id, owner_id: ownerId })
      .forUpdate()
      .first(...VIEW_COLUMNS);
    if (!row) throw notFound(`Draft ${id}`);
    requireStatus(row, 'ready', 'edited');
    const fields = { ...row.fields!, ...changes };
    const [updated] = await trx('drafts')
      .where({ id })
      .update({ fields: JSON.stringify(fields), updated_at: trx.fn.now() })
      .returning(VIEW_COLUMNS);
    return updated;
  });
}

/**
 * Turns a ready draft into a listing in status `draft`; a draft is submitted once, and a company
 * already listed on the site is 409 already_listed (claim that listing instead).
 */
export async function submitDraft(db: Db, ownerId: number, id: number, baseUrl: string): Promise<number> {
  return db.transaction(async (trx) => {
    const row: DraftRow | undefined = await trx('drafts').where({ id, owner_id: ownerId }).forUpdate().first(VIEW_COLUMNS);
    if (!row) throw notFound(`Draft ${id}`);
    requireStatus(row, 'ready', 'submitted');
    const f = row.fields!;
    if (!f.name) {
      throw unprocessable('draft_incomplete', 'The draft has no name yet; set one with update_draft.');
    }
    const listingId = await insertCompanyListing(trx, listingFromDraft(f, row.evidence, { siteId: row.site_id, ownerId, url: row.url }), {
      baseUrl,
      callerId: ownerId,
    });
    await trx('drafts').where({ id }).update({ status: 'submitted', listing_id: listingId, updated_at: trx.fn.now() });
    return listingId;
  });
}

/** The listing a drafted site becomes (submit_draft, and listings:import with no owner). */
export function listingFromDraft(
  f: DraftFields,
  evidence: DraftEvidence,
  o: { siteId: number; ownerId: number | null; url: string },
): NewListing {
  return {
    site_id: o.siteId,
    owner_id: o.ownerId,
    name: f.name!,
    url: o.url,
    headline: f.headline,
    summary: f.summary,
    seo_title: null,
    seo_description: null,
    logo_url: f.logo_url,
    image_url: f.image_url,
    contact_email: f.contact_email,
    facts: { ...f.facts },
    socials: f.socials,
    faqs: f.faqs,
    categories: f.categories,
    evidence,
  };
}

function requireStatus(row: DraftRow, wanted: DraftStatus, action: string): void {
  if (row.status === wanted) return;
  const why: Record<DraftStatus, string> = {
    crawling: 'is still crawling the website; poll get_draft until it is ready',
    drafting: 'is still being drafted; poll get_draft until it is ready',
    ready: 'is ready',
    submitted: `was already submitted as listing ${row.listing_id}`,
    failed: `failed (${row.failure_reason ?? 'crawl failed'}); create a new draft`,
  };
  throw conflict(`draft_${row.status}`, `Draft ${row.id} cannot be ${action}: it ${why[row.status]}.`);
}

/** Workflow step: the site's pages were fetched. */
export async function saveCrawledPages(db: Db, id: number, pages: CrawledPage[]): Promise<void> {
  await db('drafts')
    .where({ id })
    .whereIn('status', ['crawling', 'drafting'])
    .update({ status: 'drafting', pages: JSON.stringify(pages), updated_at: db.fn.now() });
}

export async function loadCrawledPages(db: Db, id: number): Promise<{ url: string; pages: CrawledPage[] }> {
  const row = await db('drafts').where({ id }).first('url', 'pages');
  return { url: row!.url, pages: row!.pages ?? [] };
}

/** Workflow step: fields drafted; the raw pages are dropped once they served. */
export async function saveDraftContent(db: Db, id: number, fields: DraftFields, evidence: DraftEvidence): Promise<void> {
  await db('drafts')
    .where({ id, status: 'drafting' })
    .update({
      status: 'ready',
      fields: JSON.stringify(fields),
      evidence: JSON.stringify(evidence),
      pages: null,
      updated_at: db.fn.now(),
    });
}

/** Workflow step: the crawl or drafting failed with an owner-facing reason. */
export async function markDraftFailed(db: Db, id: number, code: string, reason: string): Promise<void> {
  await db('drafts')
    .where({ id })
    .whereIn('status', ['crawling', 'drafting'])
    .update({ status: 'failed', failure_code: code, failure_reason: reason, pages: null, updated_at: db.fn.now() });
}
