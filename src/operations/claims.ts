import { z } from 'zod';
import { CLAIM_STATUSES, listOwnClaims, toClaimView } from '../domain/claims/claims.ts';
import { CLAIM_METHODS } from '../domain/claims/instructions.ts';
import { requestClaimCheck } from '../domain/claims/request-check.ts';
import { startClaim } from '../domain/claims/start-claim.ts';
import { validationFailed } from '../errors/errors.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id, PageQuery, page } from './schemas.ts';

const Instructions = z.object({
  text: z.string().describe('What to do, in words'),
  token: z.string().describe('The claim token (at least 128 random bits)'),
  record: z
    .object({ type: z.literal('TXT'), name: z.string(), value: z.string() })
    .optional()
    .describe('method dns: the TXT record to add'),
  meta: z.object({ html: z.string() }).optional().describe('method meta: the tag to put in the homepage’s <head>'),
  file: z.object({ url: z.string(), content: z.string() }).optional().describe('method file: where to publish which content'),
  email: z.object({ sent_to: z.string() }).optional().describe('method email: where the link went'),
});

export const Claim = z.object({
  id: Id,
  slug: z.string(),
  listing_id: Id,
  listing_name: z.string(),
  method: z.enum(CLAIM_METHODS),
  status: z.enum(CLAIM_STATUSES).describe('rejected: the site team refused it (see `decision`)'),
  email: z.string().optional(),
  instructions: Instructions,
  created_at: z.string(),
  expires_at: z.string().describe('A pending claim expires then'),
  closed_at: z.string().nullable(),
  decision: z
    .object({
      outcome: z.enum(['approved', 'rejected']),
      reason: z.string().describe('The site team’s reason, in their words'),
      decided_at: z.string(),
    })
    .nullable()
    .describe('Set when the site team approved or rejected the claim by hand'),
  last_check: z
    .object({
      checked_at: z.string(),
      result: z.enum(['found', 'not_found', 'error']).describe('error: a transient failure (SERVFAIL, time-out, 5xx), checked again'),
      detail: z.string().describe('What was seen, e.g. the TXT values found or the HTTP status of the file'),
    })
    .nullable(),
  workflow_id: z.string().describe('The workflow that keeps checking'),
});

export const claimListingOp = defineOperation({
  name: 'claim_listing',
  summary: 'Claim a listing of your company',
  description:
    'Starts a pending claim and returns what to publish: a DNS TXT record (dns), a meta tag in the homepage’s <head> (meta), ' +
    'a file under /.well-known (file), or an address at the company’s domain that gets a single-use link (email). ' +
    'We keep checking on our own for 7 days; verify_claim checks at once. One pending claim per account and listing: a second call returns it.',
  method: 'POST',
  path: '/claims',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['claim_own_listing', 'email_claim_unavailable', 'not_found'],
  readOnly: false,
  successStatus: 201,
  tags: ['claims'],
  input: z
    .object({
      slug: z.string().min(1).max(200).describe('Slug of the listing'),
      method: z.enum(CLAIM_METHODS),
      email: z
        .email()
        .max(254)
        .optional()
        .describe('method email only: an address at the listing’s registrable domain or a subdomain of it'),
    })
    // `email` is required for method email and refused for the others (checked in the handler): the schema says so too.
    .meta({
      anyOf: [
        { properties: { method: { const: 'email' } }, required: ['email'] },
        { properties: { method: { enum: CLAIM_METHODS.filter((m) => m !== 'email') } }, not: { required: ['email'] } },
      ],
    }),
  output: Claim,
  async handler(input, ctx) {
    if (input.method === 'email' && input.email === undefined)
      throw validationFailed([{ path: 'email', message: 'Required for method email' }]);
    if (input.method !== 'email' && input.email !== undefined)
      throw validationFailed([{ path: 'email', message: 'Only for method email' }]);
    return toClaimView(await startClaim(ctx, { userId: callerId(ctx), ...input }));
  },
});

export const verifyClaimOp = defineOperation({
  name: 'verify_claim',
  summary: 'Check a pending claim now',
  description:
    'Checks the DNS record, meta tag or file at once (at most once per 10 seconds per claim) and returns the claim with `last_check`. ' +
    'Email claims are verified by opening the emailed link (409).',
  method: 'POST',
  path: '/claims/{claim_id}/verify',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['claim_verified_by_email', 'claim_not_pending', 'rate_limited', 'workflow_unavailable'],
  readOnly: false,
  tags: ['claims'],
  input: z.object({ claim_id: Id }),
  output: Claim,
  async handler(input, ctx) {
    return toClaimView(await requestClaimCheck(ctx.db, ctx.workflows, ctx.config.claims, callerId(ctx), input.claim_id));
  },
});

export const listMyClaimsOp = defineOperation({
  name: 'list_my_claims',
  summary: 'Your claims',
  description: 'Newest first, each with its status, instructions and latest check.',
  method: 'GET',
  path: '/claims',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['claims'],
  input: z.object({ ...PageQuery }),
  output: page(Claim),
  handler: (input, ctx) => listOwnClaims(ctx.db, callerId(ctx), input.page, input.per_page),
});

/** Claims: prove ownership of a listed company and take the listing over. */
export const claimOperations = [claimListingOp, verifyClaimOp, listMyClaimsOp];
