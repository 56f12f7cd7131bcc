import { z } from 'zod';
import { GRANULARITIES, MAX_RANGE_DAYS, TOP_REFERRERS, listingStats } from '../domain/stats/listing-stats.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id } from './schemas.ts';

/** An instant of the range: a date (00:00 UTC) or a date and time with its offset. */
const Instant = z
  .union([z.iso.datetime({ offset: true, message: 'Must be a date (YYYY-MM-DD) or an ISO 8601 date and time' }), z.iso.date()])
  .describe('YYYY-MM-DD (00:00 UTC) or an ISO 8601 date and time with its offset, e.g. 2026-11-23T09:00:00Z');

const Counts = {
  views: z.int().describe('Views of the listing page by people (bots are not counted; no cookies are used)'),
  clicks: z.int().describe('Clicks through /go/{slug} to the listing’s website'),
  votes: z.int().describe('Votes cast (votes removed by the site team are not counted)'),
  followers: z.int().describe('New followers (of those who still follow)'),
};

export const getListingStatsOp = defineOperation({
  name: 'get_listing_stats',
  summary: 'Views, clicks, votes and followers of one of your listings over time',
  description:
    'Counted on our side without cookies: views of the listing page (bots excluded), clicks through to your website ' +
    '(they arrive with `ref=` naming this site), the referring hosts of the views, votes and new followers. ' +
    'Per `hour` or `day` in UTC; `from` is rounded down and `to` up to whole hours or days. Without `from` and `to`: the listing’s ' +
    `launch week, or the last 7 days before it has one. At most ${MAX_RANGE_DAYS.hour} days per hour, ${MAX_RANGE_DAYS.day} per day. ` +
    'Views and clicks reach the counts within a few seconds.',
  method: 'GET',
  path: '/me/listings/{listing_id}/stats',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['my listings'],
  input: z.object({
    listing_id: Id,
    from: Instant.optional().describe('Start of the range (default: a week before to; without either, the launch week’s Monday 00:00 UTC)'),
    to: Instant.optional().describe('End of the range, exclusive (default: a week after from)'),
    granularity: z.enum(GRANULARITIES).default('day').describe('One point per hour or per day (UTC)'),
  }),
  output: z.object({
    listing_id: Id,
    from: z.string().describe('Start of the first point'),
    to: z.string().describe('End of the last point (exclusive)'),
    granularity: z.enum(GRANULARITIES),
    series: z.array(z.object({ at: z.string().describe('Start of the hour or day (UTC)'), ...Counts })),
    totals: z.object(Counts),
    top_referrers: z
      .array(z.object({ host: z.string(), views: z.int() }))
      .describe(`The ${TOP_REFERRERS} hosts most views came from (host names only)`),
  }),
  handler: (input, ctx) =>
    listingStats(
      ctx.db,
      callerId(ctx),
      input.listing_id,
      {
        from: input.from === undefined ? undefined : new Date(input.from),
        to: input.to === undefined ? undefined : new Date(input.to),
        granularity: input.granularity,
      },
      ctx.clock.now().getTime(),
    ),
});

export const statsOperations = [getListingStatsOp];
