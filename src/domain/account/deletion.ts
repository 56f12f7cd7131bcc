import { revokeUserGrants } from '../../auth/oauth/grants.ts';
import type { Db } from '../../db/knex.ts';
import { notFound } from '../../errors/errors.ts';
import { recordAudit } from '../staff/audit.ts';
import { reauthenticate } from './reauth.ts';

/** What an unlisted listing's owner page says, and staff read, about why it went. */
export const OWNER_DELETED_REASON = 'Its owner deleted their account.';

export interface AccountDeletion {
  userId: number;
  password: string | undefined;
  sessionIdHash: string | null;
  now: Date;
  requestId: string | null;
}

/** What a deletion did, as the caller and the audit row report it. */
export interface DeletionReport {
  listingsUnlisted: number;
  ordersKept: number;
  votesKept: number;
  commentsKept: number;
}

/**
 * Deletes an account after the person proved it is theirs (the password, or for an account
 * without one a fresh sign-in), in one transaction (docs/accounts.md says what stays):
 * listings are unlisted (a listing has one owner: there is no co-owner to hand it to); orders and
 * invoices stay with their billing details; votes and comment votes stay counted, tied to the
 * account's row, which keeps no address, password or name; comments lose their author and read
 * "deleted account"; everything that signs in, mails or speaks for the person goes. A staff audit
 * row (no actor: the person did it themselves) records it.
 */
export async function deleteAccount(db: Db, d: AccountDeletion): Promise<DeletionReport> {
  await reauthenticate(db, {
    userId: d.userId,
    password: d.password,
    sessionIdHash: d.sessionIdHash,
    now: d.now,
    recentSignInServes: 'without-password',
  });
  return db.transaction(async (trx) => {
    const user = await trx('users').where({ id: d.userId }).whereNull('deleted_at').forUpdate().first('id', 'email');
    if (!user) throw notFound('The account');
    const listings = await unlistOwned(trx, d.userId, d.now);
    const ordersKept = Number((await trx('orders').where({ user_id: d.userId }).count({ n: '*' }))[0]!.n);
    const votesKept = Number((await trx('votes').where({ user_id: d.userId }).count({ n: '*' }))[0]!.n);
    const commentsKept = await trx('comments').where({ user_id: d.userId }).update({ user_id: null });
    await removePersonalRows(trx, d.userId, user.email);
    await trx('users')
      .where({ id: d.userId })
      .update({
        email: `deleted-${d.userId}@deleted.invalid`,
        password_hash: null,
        email_verified_at: null,
        deleted_at: d.now,
        updated_at: d.now,
      });
    const report = { listingsUnlisted: listings.length, ordersKept, votesKept, commentsKept };
    await recordAudit(trx, {
      actor: null,
      operation: 'delete_account',
      input: {},
      target: { kind: 'user', id: d.userId },
      after: {
        listings_unlisted: report.listingsUnlisted,
        listing_ids: listings,
        orders_kept: ordersKept,
        votes_kept: votesKept,
        comments_kept: commentsKept,
      },
      requestId: d.requestId,
      at: d.now,
    });
    return report;
  });
}

/** Unlists the person's listings, keeping the status a staff restore gives back; their ids. */
async function unlistOwned(trx: Db, userId: number, now: Date): Promise<number[]> {
  const rows = await trx('listings')
    .where({ owner_id: userId })
    .update({
      status_before_unlisted: trx.raw(`CASE WHEN status = 'unlisted' THEN status_before_unlisted ELSE status END`),
      status: 'unlisted',
      unlisted_reason: trx.raw(`coalesce(unlisted_reason, ?)`, [OWNER_DELETED_REASON]),
      owner_id: null,
      updated_at: now,
    } as never)
    .returning('id');
  return rows.map((r: { id: number }) => r.id);
}

/** Every row that signs in as, mails, speaks for or describes the person. */
async function removePersonalRows(trx: Db, userId: number, email: string): Promise<void> {
  await revokeUserGrants(trx, userId);
  for (const table of [
    'web_sessions',
    'api_keys',
    'sign_in_identities',
    'sign_in_link_requests',
    'account_tokens',
    'account_email_changes',
    'account_exports',
    'founder_profiles',
    'founder_photos',
    'interview_answers',
    'listing_followers',
    'notifications',
    'mail_stops',
    'webhook_endpoints',
  ] as const) {
    await trx(table).where({ user_id: userId }).delete();
  }
  await trx('drafts').where({ owner_id: userId }).delete();
  await trx('newsletter_subscribers')
    .where((q) => q.where({ user_id: userId }).orWhereRaw('lower(email) = lower(?)', [email]))
    .delete();
}
