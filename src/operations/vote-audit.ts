import { z } from 'zod';
import { voteAudit } from '../domain/votes/audit.ts';
import { defineOperation } from './operation.ts';

const ReasonCounts = z.array(z.object({ reason: z.string(), count: z.int() }));

export const getVoteAuditOp = defineOperation({
  name: 'get_vote_audit',
  summary: 'The public vote audit of a listing’s launch week',
  description:
    'How the votes of a live listing’s launch week were counted: votes cast, counted, discounted by a vote-ring detector ' +
    '(kept, counting 0) per reason code (network_cluster, co_voting_ring, burst), and removed by the site team per reason. ' +
    'The votes on its comments are judged by the same detectors and counted in `comment_votes`. ' +
    'Counts only: no account and no network is ever shown. The rules are on /ranking-policy.',
  method: 'GET',
  path: '/listings/{slug}/vote-audit',
  idempotent: false,
  readOnly: true,
  tags: ['public'],
  input: z.object({ slug: z.string().min(1).max(80).describe('The listing slug, e.g. acme-rockets') }),
  output: z.object({
    slug: z.string(),
    week: z.string().nullable().describe('ISO week of the launch, e.g. 2026-W48; null when the listing has no launch week'),
    week_start: z.string().nullable().describe('Monday of the launch week (YYYY-MM-DD)'),
    votes_cast: z.int().describe('Votes cast during the launch week: counted + discounted + voided'),
    votes_counted: z.int().describe('Votes that count toward the score'),
    votes_discounted: z.int().describe('Votes a detector flagged: kept, counting 0'),
    discounted_by_reason: ReasonCounts.describe('Discounted votes per reason code, most first'),
    votes_voided: z.int().describe('Votes the site team removed'),
    voided_by_reason: ReasonCounts.describe('Removed votes per reason, most first'),
    final: z.boolean().describe('Whether the weekly close froze the week’s results'),
    comment_votes: z
      .object({
        cast: z.int().describe('Upvotes of the listing’s comments cast during the launch week: counted + discounted'),
        counted: z.int(),
        discounted: z.int().describe('Comment votes a detector flagged: kept, counting 0 in the comment’s score'),
        discounted_by_reason: ReasonCounts.describe('Discounted comment votes per reason code, most first'),
      })
      .describe('The same audit for the votes on the listing’s comments'),
  }),
  handler: (input, ctx) => voteAudit(ctx.db, input.slug),
});

export const voteAuditOperations = [getVoteAuditOp] as const;
