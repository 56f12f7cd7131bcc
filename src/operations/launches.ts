import { z } from 'zod';
import { BADGE_THEMES, badgeSnippets, badgeTargetUrl } from '../domain/launches/badges.ts';
import { winnerBadges } from '../domain/launches/winner-badge.ts';
import { badgeChecks, UNCHECKED } from '../domain/launches/badge-check.ts';
import { chooseFree, recheckBadge } from '../domain/launches/owner-actions.ts';
import { listLaunchWeeks } from '../domain/launches/launch-weeks.ts';
import { ownerListingView } from '../domain/listings/listing-views.ts';
import { getOwnedListing, type ListingRow } from '../domain/listings/listings.ts';
import { listSites } from '../domain/sites/sites.ts';
import { OwnerListingView } from './listing-edit-schemas.ts';
import { callerId, defineOperation, type OperationContext } from './operation.ts';
import { BadgeCheck, HttpUrl, Id } from './schemas.ts';

/** The site the listing is on (not necessarily the request's). */
async function siteOf(ctx: OperationContext, listing: ListingRow) {
  return (await listSites(ctx.db, ctx.caches.sites)).find((s) => s.id === listing.site_id)!;
}

const BadgeSnippetSchema = z.object({ name: z.enum(BADGE_THEMES), html: z.string(), markdown: z.string(), image_url: z.string() });

export const getBadgesOp = defineOperation({
  name: 'get_badges',
  summary: 'Badge snippets of one of your listings, and the last badge check',
  description:
    'A free launch needs one of these snippets on your site (its homepage, or the badge_url set with recheck_badge): ' +
    'a link to `target_url` around the badge image, visible to visitors (not in a comment, template, script or hidden element).',
  method: 'GET',
  path: '/me/listings/{listing_id}/badges',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['launches'],
  input: z.object({ listing_id: Id }),
  output: z.object({
    listing_id: Id,
    target_url: z.string().describe('The listing page the badge must link to'),
    badge_url: z.string().nullable().describe('The page checked for the badge when it is not the listing’s website'),
    badges: z.array(BadgeSnippetSchema),
    check: BadgeCheck,
    winner: z
      .object({
        week_start: z.string().describe('Monday of the week it placed in'),
        rank: z.int().min(1).max(3),
        archive_url: z.string().describe('The week’s lasting page, which the winner’s badge links to'),
        badges: z.array(BadgeSnippetSchema),
      })
      .nullable()
      .describe('Once the listing finished in the top three of its week: the winner’s badge snippets'),
  }),
  async handler(input, ctx) {
    const listing = await getOwnedListing(ctx.db, callerId(ctx), input.listing_id);
    const [site, checks, row] = await Promise.all([
      siteOf(ctx, listing),
      badgeChecks(ctx.db, [listing.id]),
      ctx.db('listing_badges').where({ listing_id: listing.id }).first('badge_url'),
    ]);
    const winner = await winnerBadges(ctx.db, ctx.config.baseUrl, listing, site.name);
    return {
      listing_id: listing.id,
      target_url: badgeTargetUrl(ctx.config.baseUrl, listing.slug),
      badge_url: row?.badge_url ?? null,
      badges: badgeSnippets(ctx.config.baseUrl, listing, site.name),
      check: checks.get(listing.id) ?? UNCHECKED,
      winner,
    };
  },
});

export const recheckBadgeOp = defineOperation({
  name: 'recheck_badge',
  summary: 'Check the badge on your site now',
  description:
    'Fetches your page and looks for the badge (at most once per 10 s per listing; 429 with Retry-After otherwise). ' +
    'A free listing waiting for its badge moves on at once when it is found. `badge_url` (optional) sets the page to check, ' +
    'on the same registrable domain as the listing; null goes back to the listing’s website.',
  method: 'POST',
  path: '/me/listings/{listing_id}/badge-check',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['badge_url_off_domain', 'invalid_url', 'address_refused', 'rate_limited', 'workflow_unavailable'],
  readOnly: false,
  tags: ['launches'],
  input: z.object({
    listing_id: Id,
    badge_url: HttpUrl.nullable()
      .optional()
      .describe('A page on the listing’s registrable domain (else 422 badge_url_off_domain); null: the listing’s website'),
  }),
  output: BadgeCheck,
  async handler(input, ctx) {
    return recheckBadge(ctx, callerId(ctx), input.listing_id, input.badge_url);
  },
});

export const chooseFreeListingOp = defineOperation({
  name: 'choose_free_listing',
  summary: 'Launch a listing for free, in the queue',
  description:
    'For a listing in draft (or waiting for its badge or founder profile). Needs a complete founder profile and our badge on your site: ' +
    'without them the listing is awaiting_profile or awaiting_badge and `missing` says what to do (we keep re-checking the badge). ' +
    'With both it is scheduled in the earliest week at least the site’s queue length out that has a free slot (see list_launch_weeks), ' +
    'and goes live on Monday 00:00 UTC of that week.',
  method: 'POST',
  path: '/me/listings/{listing_id}/free',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['listing_not_draft', 'paid_launch_chosen', 'free_queue_full', 'rate_limited', 'workflow_unavailable'],
  readOnly: false,
  tags: ['launches'],
  input: z.object({ listing_id: Id }),
  output: OwnerListingView,
  async handler(input, ctx) {
    return ownerListingView(ctx.db, ctx.caches.sites, await chooseFree(ctx, callerId(ctx), input.listing_id), ctx.config.baseUrl);
  },
});

export const listLaunchWeeksOp = defineOperation({
  name: 'list_launch_weeks',
  summary: 'The launch queue: the next 12 weeks and how full they are',
  description:
    'This week and the next eleven of this site, with free and paid slots and how many are taken; paid slots held by pending ' +
    'checkouts count as taken and show apart in paid_held. state: live (this week), open, full (no free and no paid slot left). Your own week and place show on your listing (launch_week, queue_position).',
  method: 'GET',
  path: '/launch-weeks',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({}),
  output: z.object({
    items: z.array(
      z.object({
        week: z.string().describe('ISO week, e.g. 2026-W52'),
        week_start: z.string().describe('Its Monday, YYYY-MM-DD; launches go live at 00:00 UTC'),
        free_slots: z.int(),
        free_taken: z.int(),
        paid_slots: z.int(),
        paid_taken: z.int().describe('Paid slots taken: booked, or held by a checkout not paid yet; paid_slots - paid_taken are free'),
        paid_held: z.int().describe('Of paid_taken, the slots held by checkouts not paid yet (they come back when the link expires)'),
        state: z.enum(['open', 'full', 'live', 'closed']),
      }),
    ),
  }),
  handler: async (_input, ctx) => ({ items: await listLaunchWeeks(ctx.db, ctx.site.id, ctx.clock.now()) }),
});

/** Badges, the free route and the public queue. */
export const launchOperations = [getBadgesOp, recheckBadgeOp, chooseFreeListingOp, listLaunchWeeksOp];
