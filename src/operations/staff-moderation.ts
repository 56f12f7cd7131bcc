import { z } from 'zod';
import { LISTING_STATUSES } from '../domain/fields.ts';
import {
  findSiteListings,
  restoreByStaff,
  revertEdit,
  siteEdits,
  siteListing,
  unlistByStaff,
  type StaffEdit,
} from '../domain/listings/moderation.ts';
import type { ListingRow } from '../domain/listings/listings.ts';
import { unprocessable } from '../errors/errors.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { Id, PageQuery, page } from './schemas.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

/** Who moderates: admins and moderators (support is refused). */
const MODERATORS = ['admin', 'moderator'] as const;

const FieldChange = z.object({ before: z.unknown(), after: z.unknown() });

const Edit = z.object({
  id: z.int(),
  listing_id: z.int(),
  listing_name: z.string(),
  listing_slug: z.string(),
  operation: z.string().describe('The operation that made it (update_my_listing, a claim, staff_revert_listing_edit...)'),
  editor_id: z.int().nullable().describe('Who made it; null for the admin command line or a deleted account'),
  editor_email: z.string().nullable(),
  via_listing_id: z.int().nullable().describe('The listing it was made on, when it travelled here by apply_to'),
  changes: z.record(z.string(), FieldChange).describe('Each changed field as it was before the edit and after it (null: empty)'),
  created_at: z.string(),
});

const editView = (e: StaffEdit): z.input<typeof Edit> => ({
  id: e.id,
  listing_id: e.listing_id,
  listing_name: e.listing_name,
  listing_slug: e.listing_slug,
  operation: e.operation,
  editor_id: e.editor_id,
  editor_email: e.editor_email,
  via_listing_id: e.source_listing_id,
  changes: e.changes,
  created_at: e.created_at.toISOString(),
});

const ListingRef = z.string().min(1).max(80).describe('A listing id or slug');

/** A listing id or slug as the domain looks it up. */
const refOf = (value: string): number | string => (/^\d{1,10}$/.test(value) ? Number(value) : value);

export const staffListListingEditsOp = defineOperation({
  name: 'staff_list_listing_edits',
  summary: 'Site team: recent listing edits, before and after',
  description:
    'Every kept edit of this site’s listings, newest first, each with the fields it changed as they were before and after. ' +
    '`listing` (an id or slug) narrows to one listing. For moderators and admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/listing-edits',
  scope: 'staff:listings',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ listing: ListingRef.optional(), ...PageQuery }),
  output: page(Edit),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, MODERATORS);
    const listingId = input.listing === undefined ? undefined : (await siteListing(ctx.db, ctx.site.id, refOf(input.listing))).id;
    const found = await siteEdits(ctx.db, ctx.site.id, { listingId, page: input.page, perPage: input.per_page });
    await audit(ctx, actor, { operation: 'staff_list_listing_edits', input, after: { found: found.total } });
    return { ...found, items: found.items.map(editView) };
  },
});

export const staffRevertListingEditOp = defineOperation({
  name: 'staff_revert_listing_edit',
  summary: 'Site team: put the fields of an edit back as they were',
  description:
    'Sets every field the edit changed back to its value before the edit, kept as a new edit like any other. Refused (409 ' +
    '`edit_superseded`, naming the later edits and fields) when a later edit changed any of the same fields. For moderators and admins.',
  method: 'POST',
  path: '/staff/listing-edits/{id}/revert',
  scope: 'staff:listings',
  idempotent: true,
  readOnly: false,
  destructive: true,
  errorCodes: [...STAFF_ERROR_CODES, 'edit_superseded'],
  tags: ['staff'],
  input: z.object({ id: Id.describe('The edit’s id') }),
  output: z.object({ reverted: Edit, revert: Edit.describe('The new edit that put the fields back') }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, MODERATORS);
    const meta = { editorId: actor.userId, operation: 'staff_revert_listing_edit', requestId: ctx.requestId };
    const { edit, reverted } = await revertEdit(ctx.db, ctx.site.id, input.id, meta, async (trx, revert) => {
      const target = { kind: 'listing', id: String(revert.listing_id) };
      const before = fieldsOf(revert, 'before');
      await audit(ctx, actor, { operation: 'staff_revert_listing_edit', input, target, before, after: fieldsOf(revert, 'after') }, trx);
    });
    forgetPublicPages(ctx);
    return { reverted: editView(edit), revert: editView(reverted) };
  },
});

const fieldsOf = (e: StaffEdit, side: 'before' | 'after') =>
  Object.fromEntries(Object.entries(e.changes).map(([field, change]) => [field, change[side]]));

const StaffListing = z.object({
  id: z.int(),
  slug: z.string(),
  name: z.string(),
  status: z.enum(LISTING_STATUSES),
  unlisted_reason: z.string().nullable().describe('Why the site team unlisted it; null otherwise'),
  updated_at: z.string(),
});

const listingView = (l: Pick<ListingRow, 'id' | 'slug' | 'name' | 'status' | 'unlisted_reason' | 'updated_at'>) => ({
  id: l.id,
  slug: l.slug,
  name: l.name,
  status: l.status,
  unlisted_reason: l.unlisted_reason ?? null,
  updated_at: l.updated_at.toISOString(),
});

export const staffFindListingsOp = defineOperation({
  name: 'staff_find_listings',
  summary: 'Site team: find listings to unlist or restore',
  description:
    'This site’s listings whose name or slug contains `q` (any case), by name; `unlisted: true` keeps the unlisted ones only. ' +
    'For moderators and admins.',
  method: 'GET',
  path: '/staff/listings',
  scope: 'staff:listings',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({
    q: z.string().trim().max(80).optional(),
    unlisted: z.boolean().optional(),
    limit: z.int().min(1).max(100).default(50),
  }),
  output: z.object({ items: z.array(StaffListing) }),
  async handler(input, ctx) {
    await asStaff(ctx, MODERATORS);
    const rows = await findSiteListings(ctx.db, ctx.site.id, { text: input.q, unlisted: input.unlisted, limit: input.limit });
    return { items: rows.map(listingView) };
  },
});

const Reason = z.string().max(500).optional().describe('Why, in a sentence the owner reads (by mail and on their listing page)');

/** A reason is required, but its absence is a refusal the caller can fix (422), as the console's form shows it. */
function reasonOf(input: { reason?: string }): string {
  const reason = input.reason?.trim() ?? '';
  if (!reason) throw unprocessable('reason_required', 'Say why in `reason`: the owner is told.');
  return reason;
}

const moderationOp = (kind: 'unlist' | 'restore') =>
  defineOperation({
    name: `staff_${kind}_listing`,
    summary: kind === 'unlist' ? 'Site team: take a listing off the site' : 'Site team: put an unlisted listing back on the site',
    description:
      kind === 'unlist'
        ? 'Unlists a live listing: it leaves the rankings, search and every public page at once. The owner is told `reason` by mail ' +
          'and on their listing page. For moderators and admins.'
        : 'Puts an unlisted listing back, live: it returns to the rankings, search and its pages. The owner is told `reason` by mail ' +
          'and in their notifications. For moderators and admins.',
    method: 'POST',
    path: `/staff/listings/{listing}/${kind}`,
    scope: 'staff:listings',
    idempotent: true,
    readOnly: false,
    destructive: kind === 'unlist',
    errorCodes: [...STAFF_ERROR_CODES, 'reason_required', kind === 'unlist' ? 'listing_not_live' : 'listing_not_unlisted'],
    tags: ['staff'],
    input: z.object({ listing: ListingRef, reason: Reason }),
    output: StaffListing,
    handler: (input, ctx) => moderate(kind, input, ctx),
  });

async function moderate(kind: 'unlist' | 'restore', input: { listing: string; reason?: string }, ctx: OperationContext) {
  const actor = await asStaff(ctx, MODERATORS);
  const reason = reasonOf(input);
  const listing = await siteListing(ctx.db, ctx.site.id, refOf(input.listing));
  const operation = `staff_${kind}_listing`;
  const m = { siteId: ctx.site.id, listingId: listing.id, reason, baseUrl: ctx.config.baseUrl, noticeKey: ctx.requestId };
  const { after } = await (kind === 'unlist' ? unlistByStaff : restoreByStaff)(ctx.db, m, async (trx, before, changed) => {
    const target = { kind: 'listing', id: String(listing.id) };
    await audit(ctx, actor, { operation, input, target, before: stateOf(before), after: stateOf(changed) }, trx);
  });
  forgetPublicPages(ctx);
  return listingView(after);
}

const stateOf = (row: ListingRow) => ({ status: row.status, unlisted_reason: row.unlisted_reason ?? null });

/**
 * A listing that leaves or returns changes its own page and every page that ranks listings: this
 * process forgets its kept copies and answers (other processes' age out within their TTL, as after
 * an owner's edit). Search needs nothing: its change log follows the row.
 */
export function forgetPublicPages(ctx: OperationContext): void {
  ctx.caches.visitorPages.forget();
  ctx.caches.leaderboard.clear();
  for (const cache of Object.values(ctx.caches.browse)) cache.clear();
}

export const staffUnlistListingOp = moderationOp('unlist');
export const staffRestoreListingOp = moderationOp('restore');

export const staffModerationOperations = [
  staffListListingEditsOp,
  staffRevertListingEditOp,
  staffFindListingsOp,
  staffUnlistListingOp,
  staffRestoreListingOp,
] as const;
