import { z } from 'zod';
import { mediaUrl } from '../lib/paths.ts';
import { listInterviewQuestions } from '../domain/catalog/interview-questions.ts';
import { listProducts } from '../domain/catalog/products.ts';
import { cachedCommunityLeaderboard } from '../domain/ranking/leaderboard.ts';
import { ISO_WEEK_PATTERN, isoWeekMonday, isoWeekStart } from '../workflows/contracts/weeks.ts';
import { listSites } from '../domain/sites/sites.ts';
import { defineOperation } from './operation.ts';
import { ProductUnit } from './order-schemas.ts';
import { Id, PageQuery, PublicListing, page } from './schemas.ts';

export const searchListingsOp = defineOperation({
  name: 'search_listings',
  summary: 'Search live listings',
  description:
    'Search over live listings of this site. Words match as prefixes of words in the name, web address, headline ' +
    '(english stemming) and summary; results rank by where the words matched (name or address, then headline, then ' +
    'summary), then by votes; listings featured this week come first (`featured: true`). A query that finds nothing is retried with misspelt words corrected. Without `q`, most ' +
    'voted first. Results stop after the first 1,000; `total` counts matches up to 100 and `total_capped` says when there are more.',
  method: 'GET',
  path: '/listings',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({
    q: z
      .string()
      .max(200)
      .optional()
      .describe('Search words (prefixes match); with quotes, -exclusions or `or` whole words match as in web search'),
    ...PageQuery,
  }),
  output: page(
    PublicListing.extend({ featured: z.boolean().describe('Featured this week (a paid placement): featured matches come first') }),
  ).extend({
    total: z.int().describe('Matches, counted up to 100'),
    total_capped: z
      .boolean()
      .describe('True when there are more than 100 matches (`total` is then 100; results are served up to the first 1,000)'),
  }),
  handler: (input, ctx) =>
    ctx.search.search({
      siteId: ctx.site.id,
      siteKey: ctx.site.key,
      baseUrl: ctx.config.baseUrl,
      q: input.q,
      page: input.page,
      perPage: input.per_page,
    }),
});

/** An ISO week label (`2026-W48`) that names a real week. */
export const IsoWeek = z
  .string()
  .regex(ISO_WEEK_PATTERN, { message: 'Must be an ISO week such as 2026-W48', abort: true })
  .refine((v) => isoWeekMonday(v) !== null, 'No such ISO week (W53 exists only in long years; years from 2000)');

export const getCommunityLeaderboardOp = defineOperation({
  name: 'get_community_leaderboard',
  summary: 'Community leaderboard of a week',
  description:
    'The ranking of the live listings launched in an ISO week (default: the current week) by the votes people cast on the ' +
    'web during that week, a page at a time (best first); `state` is `final` once the week is closed (Monday 00:00 UTC), else `live`. ' +
    'There is no tool to vote: votes are cast by signed-in people on the site.',
  method: 'GET',
  path: '/leaderboards/community-weekly',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({
    week: IsoWeek.optional().describe('ISO week, e.g. 2026-W48; default the current week (UTC)'),
    ...PageQuery,
  }),
  output: z.object({
    week: z.string().describe('ISO week, e.g. 2026-W48'),
    week_start: z.string().describe('Monday 00:00 UTC of the week (YYYY-MM-DD)'),
    state: z.enum(['live', 'final']).describe('final: frozen by the weekly close; live: votes still count'),
    formula: z.string().describe('How the score and the ranking are computed'),
    items: z.array(
      z.object({
        rank: z.int(),
        id: Id,
        slug: z.string(),
        name: z.string(),
        url: z.string(),
        headline: z.string().nullable(),
        logo_url: z.string().nullable().describe('The 256×256 logo under /media'),
        score: z.int(),
        votes_removed: z.int().describe('Votes of the launch week removed by the site team (fraud)'),
        votes_discounted: z.int().describe('Votes of the launch week a vote-ring detector flagged: kept, counting 0 (see get_vote_audit)'),
        comment_count: z.int().describe('Visible comments and replies of its discussion (list_comments)'),
      }),
    ),
    page: z.int(),
    per_page: z.int(),
    total: z.int().describe('Ranked listings of the week'),
  }),
  async handler(input, ctx) {
    const board = await cachedCommunityLeaderboard(ctx.db, ctx.caches.leaderboard, ctx.site.id, {
      weekStart: input.week ? isoWeekMonday(input.week)! : isoWeekStart(ctx.clock.now()),
      page: input.page,
      perPage: input.per_page,
    });
    // The stored logo paths (site-relative, as pages use them) as URLs on the public origin.
    return { ...board, items: board.items.map((item) => ({ ...item, logo_url: mediaUrl(ctx.config.baseUrl, item.logo_url) })) };
  },
});

export const listInterviewQuestionsOp = defineOperation({
  name: 'list_interview_questions',
  summary: 'Founder interview questions',
  method: 'GET',
  path: '/interview-questions',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({}),
  output: z.object({ items: z.array(z.object({ id: Id, position: z.int(), text: z.string() })) }),
  handler: async (_input, ctx) => ({ items: await listInterviewQuestions(ctx.db, ctx.site.id) }),
});

export const listProductsOp = defineOperation({
  name: 'list_products',
  summary: 'Products with current prices',
  description:
    'Prices are in USD cents excluding VAT, per `unit` (a featured week, a billboard day, a category, or the item), and change; ' +
    'always read them here. An order line costs quantity × price.',
  method: 'GET',
  path: '/products',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({}),
  output: z.object({
    items: z.array(
      z.object({
        key: z.string(),
        name: z.string(),
        description: z.string(),
        price_cents: z.int().describe('Price of one unit'),
        unit: ProductUnit.describe('What one unit is: featured weeks, billboard days, categories'),
        currency: z.literal('USD'),
        needs_listing: z.boolean(),
        options: z.record(z.string(), z.unknown()).describe('Accepted options of an order item for this product'),
      }),
    ),
  }),
  handler: async (_input, ctx) => ({ items: await listProducts(ctx.db, ctx.caches.catalog.products, ctx.site.id) }),
});

export const listSitesOp = defineOperation({
  name: 'list_sites',
  summary: 'Sites of the directory',
  description: 'Site keys accepted by `site` on create_draft and by `apply_to`.',
  method: 'GET',
  path: '/sites',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({}),
  output: z.object({ items: z.array(z.object({ key: z.string(), name: z.string(), is_default: z.boolean() })) }),
  handler: async (_input, ctx) => ({
    items: (await listSites(ctx.db, ctx.caches.sites)).map((s) => ({ key: s.key, name: s.name, is_default: s.is_default })),
  }),
});

export const publicOperations = [searchListingsOp, getCommunityLeaderboardOp, listInterviewQuestionsOp, listProductsOp, listSitesOp];
