import { z } from 'zod';
import { decideFlag, listFlags, readFlag, type VoteFlag } from '../domain/votes/flags.ts';
import { isoWeekLabel, isoWeekMonday } from '../workflows/contracts/weeks.ts';
import { invalidField } from '../errors/errors.ts';
import { defineOperation } from './operation.ts';
import { Id } from './schemas.ts';
import { forgetPublicPages } from './staff-moderation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

const FLAG_STATES = ['discounted', 'kept', 'voided'] as const;

const Flag = z.object({
  id: z.int(),
  listing_id: z.int(),
  listing_slug: z.string(),
  user_id: z.int().nullable().describe('The voter; null once their account is deleted'),
  week: z.string().describe('The launch week, e.g. 2026-W48'),
  reason: z.string().describe('What the detector found (shown publicly with a voided vote)'),
  detail: z.string(),
  state: z.enum(FLAG_STATES).describe('discounted: not counted, waiting for review; kept: counts again; voided: removed'),
  flagged_at: z.string(),
  decided_at: z.string().nullable(),
});

const flagView = (f: VoteFlag): z.input<typeof Flag> => ({
  id: f.id,
  listing_id: f.listing_id,
  listing_slug: f.slug,
  user_id: f.user_id,
  week: isoWeekLabel(f.week),
  reason: f.reason,
  detail: f.detail,
  state: f.state,
  flagged_at: f.flagged_at.toISOString(),
  decided_at: f.decided_at?.toISOString() ?? null,
});

export const staffListVoteFlagsOp = defineOperation({
  name: 'staff_list_vote_flags',
  summary: 'Site team: the vote-ring detectors’ flags',
  description:
    'The flags the ring detectors raised on this site’s votes, newest week first: `state` discounted ones wait for a decision. ' +
    'Narrowed by `week` (ISO, e.g. 2026-W48), `listing` (id) and `state`. For moderators and admins.',
  method: 'GET',
  path: '/staff/vote-flags',
  scope: 'staff:listings',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({
    week: z.string().max(10).optional().describe('An ISO week such as 2026-W48'),
    listing: Id.optional().describe('A listing id'),
    state: z.enum(FLAG_STATES).optional(),
    limit: z.int().min(1).max(500).default(100),
  }),
  output: z.object({ items: z.array(Flag) }),
  async handler(input, ctx) {
    await asStaff(ctx, ['admin', 'moderator']);
    const weekStart = input.week === undefined ? undefined : isoWeekMonday(input.week);
    if (weekStart === null) throw invalidField('week', `must be an ISO week such as 2026-W48, not "${input.week}"`);
    const rows = await listFlags(ctx.db, {
      weekStart,
      listingId: input.listing,
      siteId: ctx.site.id,
      state: input.state,
      limit: input.limit,
    });
    return { items: rows.map(flagView) };
  },
});

export const staffDecideVoteFlagOp = defineOperation({
  name: 'staff_decide_vote_flag',
  summary: 'Site team: keep or void a flagged vote',
  description:
    '`keep`: the vote counts again and later scans leave it alone. `void`: the vote is removed and shown publicly in the vote ' +
    'audit with the flag’s reason; final (409 `flag_decided` after). For moderators and admins.',
  method: 'POST',
  path: '/staff/vote-flags/{id}/decide',
  scope: 'staff:listings',
  idempotent: true,
  readOnly: false,
  destructive: true,
  errorCodes: [...STAFF_ERROR_CODES, 'flag_decided'],
  tags: ['staff'],
  input: z.object({ id: Id.describe('The flag’s id'), decision: z.enum(['keep', 'void']) }),
  output: Flag,
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'moderator']);
    const decided = await ctx.db.transaction(async (trx) => {
      const before = await readFlag(trx, input.id, ctx.site.id);
      const after = await decideFlag(trx, input.id, input.decision);
      const target = { kind: 'vote_flag', id: String(input.id) };
      const state = (f: VoteFlag) => ({ state: f.state, listing_id: f.listing_id, user_id: f.user_id });
      await audit(ctx, actor, { operation: 'staff_decide_vote_flag', input, target, before: state(before), after: state(after) }, trx);
      return after;
    });
    // A kept or voided vote changes the listing's count, so the pages that show it change too.
    forgetPublicPages(ctx);
    return flagView(decided);
  },
});

export const staffVoteFlagOperations = [staffListVoteFlagsOp, staffDecideVoteFlagOp] as const;
