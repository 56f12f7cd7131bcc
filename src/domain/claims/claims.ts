import type { Db } from '../../db/knex.ts';
import { pageOf } from '../../db/pages.ts';
import { AppError, conflict, notFound, validationFailed } from '../../errors/errors.ts';
import { claimInstructions, newClaimToken, type ClaimMethod } from './instructions.ts';
import { emailClaimDomain, emailClaimRefusal, isAddressAt } from './email-domain.ts';
import { issueClaimLink } from './email-links.ts';
import type { CheckOutcome } from './check-result.ts';
import { claimWorkflowId } from '../../workflows/contracts/workflow-ids.ts';

export const CLAIM_STATUSES = ['pending', 'verified', 'expired', 'canceled', 'rejected'] as const;
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** A decision of the site team on a claim (staff_decide_claim). */
export type ClaimDecision = 'approved' | 'rejected';

/** A claim with what its views need of the listing and its latest check. */
export interface ClaimRow {
  id: number;
  listing_id: number;
  user_id: number;
  method: ClaimMethod;
  email: string | null;
  token: string;
  status: ClaimStatus;
  created_at: Date;
  expires_at: Date;
  closed_at: Date | null;
  decision: ClaimDecision | null;
  /** The site team's reason, for the claimant. */
  decision_reason: string | null;
  decided_at: Date | null;
  slug: string;
  listing_name: string;
  listing_url: string;
  check_at: Date | null;
  check_result: CheckOutcome | null;
  check_detail: string | null;
}

/** Claims joined with their listing and latest check; narrow it with where(). */
export function claimQuery(db: Db) {
  return db('claims as c')
    .join('listings as l', 'l.id', 'c.listing_id')
    .joinRaw(
      'LEFT JOIN LATERAL (SELECT checked_at, result, detail FROM claim_checks WHERE claim_id = c.id ORDER BY id DESC LIMIT 1) lc ON true',
    )
    .select(
      'c.id',
      'c.listing_id',
      'c.user_id',
      'c.method',
      'c.email',
      'c.token',
      'c.status',
      'c.created_at',
      'c.expires_at',
      'c.closed_at',
      'c.decision',
      'c.decision_reason',
      'c.decided_at',
      'l.slug',
      'l.name as listing_name',
      'l.url as listing_url',
      'lc.checked_at as check_at',
      'lc.result as check_result',
      'lc.detail as check_detail',
    );
}

/** The claimant's view of a claim (claim_listing, verify_claim, list_my_claims). */
export function toClaimView(row: ClaimRow) {
  return {
    id: row.id,
    slug: row.slug,
    listing_id: row.listing_id,
    listing_name: row.listing_name,
    method: row.method,
    status: row.status,
    ...(row.email ? { email: row.email } : {}),
    instructions: claimInstructions(row, row.listing_url),
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    closed_at: row.closed_at?.toISOString() ?? null,
    decision: row.decision ? { outcome: row.decision, reason: row.decision_reason!, decided_at: row.decided_at!.toISOString() } : null,
    last_check: row.check_at ? { checked_at: row.check_at.toISOString(), result: row.check_result!, detail: row.check_detail! } : null,
    workflow_id: claimWorkflowId(row.id),
  };
}

export type ClaimView = ReturnType<typeof toClaimView>;

/** One of the caller's claims; another account's claim is "not found". */
export async function getOwnClaim(db: Db, userId: number, claimId: number): Promise<ClaimRow> {
  const row = await claimQuery(db).where({ 'c.id': claimId, 'c.user_id': userId }).first();
  if (!row) throw notFound(`Claim ${claimId}`);
  return row;
}

/** Any claim by id (workflows, support). */
export async function getClaim(db: Db, claimId: number): Promise<ClaimRow | undefined> {
  return claimQuery(db).where('c.id', claimId).first();
}

/** The caller's claims, newest first. */
export async function listOwnClaims(db: Db, userId: number, page: number, perPage: number) {
  const found = await pageOf<ClaimRow>(
    claimQuery(db).where('c.user_id', userId).orderBy('c.id', 'desc'),
    db('claims').where({ user_id: userId }),
    page,
    perPage,
  );
  return { ...found, items: found.items.map(toClaimView) };
}

export interface NewClaim {
  userId: number;
  slug: string;
  method: ClaimMethod;
  email?: string;
  lifetimeMs: number;
  baseUrl: string;
  /** Runs in the claim's transaction once it is inserted (its workflow's start is recorded there); returns what it recorded. */
  recordStart?: (trx: Db, claim: NewClaimRow) => Promise<number>;
}

/** A claim just inserted, as its workflow's start needs it. */
export interface NewClaimRow {
  id: number;
  listing_id: number;
  slug: string;
  method: ClaimMethod;
  created_at: Date;
  expires_at: Date;
  mailIds: number[];
}

export interface CreatedClaim {
  claim: ClaimRow;
  /** False when the caller's pending claim on the listing was returned instead. */
  created: boolean;
  /** Outbox rows queued (the emailed link), for immediate delivery. */
  mailIds: number[];
  /** What recordStart recorded (none when the claim was not created here). */
  startIds: number[];
}

/**
 * Starts a claim on a listing (one pending claim per account and listing: a repeated call
 * returns it). Any status: a listing not yet live holds its company too (submit_draft answers
 * already_listed with this listing to claim), so a company must be able to win it back from
 * whoever listed it first. An email claim needs an address at the listing's registrable domain, and gets
 * its single-use link queued in the same transaction.
 */
export async function createClaim(db: Db, input: NewClaim): Promise<CreatedClaim> {
  const listing = await db('listings').where({ slug: input.slug }).first('id', 'owner_id', 'url');
  if (!listing) throw notFound(`Listing "${input.slug}"`);
  if (listing.owner_id === input.userId) throw conflict('claim_own_listing', `You already own the listing "${input.slug}".`);
  const existing = await pendingClaim(db, listing.id, input.userId);
  if (existing) return { claim: existing, created: false, mailIds: [], startIds: [] };
  if (input.method === 'email') checkEmailClaim(listing.url, input.email!);
  const result = await db.transaction(async (trx) => {
    const email = input.method === 'email' ? input.email!.toLowerCase() : null;
    const expiresAt = new Date(Date.now() + input.lifetimeMs);
    // ON CONFLICT on the partial unique index: of two concurrent first claims one inserts.
    const { rows } = await trx.raw(
      `INSERT INTO claims (listing_id, user_id, method, email, token, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (listing_id, user_id) WHERE status = 'pending' DO NOTHING RETURNING id, email, expires_at, created_at`,
      [listing.id, input.userId, input.method, email, newClaimToken(), expiresAt],
    );
    const row = rows[0];
    if (!row) return null; // a concurrent call created it first
    const mailIds = row.email
      ? [await issueClaimLink(trx, { claimId: row.id, to: row.email, expiresAt: row.expires_at, baseUrl: input.baseUrl })]
      : [];
    const made = { id: row.id as number, listing_id: listing.id as number, slug: input.slug, method: input.method, mailIds };
    const startIds = input.recordStart
      ? [await input.recordStart(trx, { ...made, created_at: row.created_at, expires_at: row.expires_at })]
      : [];
    return { id: made.id, mailIds, startIds };
  });
  if (!result) return { claim: (await pendingClaim(db, listing.id, input.userId))!, created: false, mailIds: [], startIds: [] };
  return { claim: (await getClaim(db, result.id))!, created: true, mailIds: result.mailIds, startIds: result.startIds };
}

async function pendingClaim(db: Db, listingId: number, userId: number): Promise<ClaimRow | undefined> {
  return claimQuery(db).where({ 'c.listing_id': listingId, 'c.user_id': userId, 'c.status': 'pending' }).first();
}

function checkEmailClaim(listingUrl: string, email: string): void {
  const refusal = emailClaimRefusal(listingUrl);
  if (refusal) throw new AppError('email_claim_unavailable', refusal);
  const domain = emailClaimDomain(listingUrl);
  if (!isAddressAt(email, domain)) {
    throw validationFailed([{ path: 'email', message: `Must be an address at ${domain} (or a subdomain of it), the listing's domain` }]);
  }
}
