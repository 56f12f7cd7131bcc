import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex.ts';
import { appError, notFound } from '../../errors/errors.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { queueMail } from '../../mail/outbox.ts';
import { confirmLinkMail } from './link-mails.ts';
import type { SignInProvider } from './tables.ts';

/**
 * Who an identity of GitHub or Google is here (docs/decisions/social-sign-in.md). An identity
 * signs in to the account it is linked to; a new one with an address nobody has makes an
 * account; an address that has an account is linked only by its owner (signed in, or through
 * the mailed link); an unverified address neither links nor creates.
 */

/** What the provider says about the person, after the code was exchanged. */
export interface ProviderProfile {
  provider: SignInProvider;
  subject: string;
  /** The verified address, or null when the provider vouches for none. */
  verifiedEmail: string | null;
}

export type Resolution =
  | { outcome: 'signed_in'; userId: number }
  | { outcome: 'created'; userId: number }
  | { outcome: 'linked'; userId: number }
  | { outcome: 'confirm_by_mail'; email: string }
  | { outcome: 'unverified' }
  | { outcome: 'identity_taken' }
  | { outcome: 'email_taken' }
  | { outcome: 'provider_taken' };

const LINK_REQUEST_LIFETIME_MS = 3600 * 1000;
/** Confirmation mails per account and window: the button cannot be used to flood a mailbox. */
const MAX_LINK_MAILS = 3;
const LINK_MAIL_WINDOW_MS = 15 * 60 * 1000;

/** Resolves a finished attempt; `linkUserId` when the signed-in person links a provider from /account. */
export async function resolveIdentity(
  db: Db,
  baseUrl: string,
  now: Date,
  profile: ProviderProfile,
  linkUserId: number | null,
): Promise<Resolution> {
  const email = profile.verifiedEmail;
  if (!email) return { outcome: 'unverified' };
  return db.transaction(async (trx) => {
    const linked = await trx('sign_in_identities').where({ provider: profile.provider, subject: profile.subject }).forUpdate().first();
    if (linked) {
      if (linkUserId !== null && linked.user_id !== linkUserId) return { outcome: 'identity_taken' };
      await trx('sign_in_identities').where({ id: linked.id }).update({ last_used_at: now });
      return linkUserId === null ? { outcome: 'signed_in', userId: linked.user_id } : { outcome: 'linked', userId: linked.user_id };
    }
    const owner = await trx('users').where({ email }).first('id', 'email');
    if (linkUserId !== null) return linkForSignedIn(trx, now, profile, linkUserId, owner?.id ?? null);
    if (owner) return askOwner(trx, baseUrl, now, profile, owner);
    return createAccount(trx, baseUrl, now, profile);
  });
}

async function linkForSignedIn(db: Db, now: Date, profile: ProviderProfile, userId: number, ownerId: number | null): Promise<Resolution> {
  // The address is another account's: linking it here would sign in to this one with that person's mail.
  if (ownerId !== null && ownerId !== userId) return { outcome: 'email_taken' };
  if (await hasProvider(db, userId, profile.provider)) return { outcome: 'provider_taken' };
  await insertIdentity(db, now, profile, userId);
  return { outcome: 'linked', userId };
}

async function askOwner(
  db: Db,
  baseUrl: string,
  now: Date,
  profile: ProviderProfile,
  owner: { id: number; email: string },
): Promise<Resolution> {
  const [{ count }] = await db('sign_in_link_requests')
    .where({ user_id: owner.id })
    .where('created_at', '>', new Date(now.getTime() - LINK_MAIL_WINDOW_MS))
    .count({ count: '*' });
  if (Number(count) < MAX_LINK_MAILS) {
    const token = randomBytes(32).toString('base64url');
    await db('sign_in_link_requests').insert({
      token_hash: sha256Hex(token),
      user_id: owner.id,
      provider: profile.provider,
      subject: profile.subject,
      email: profile.verifiedEmail!,
      created_at: now,
      expires_at: new Date(now.getTime() + LINK_REQUEST_LIFETIME_MS),
    });
    await queueMail(db, confirmLinkMail(baseUrl, owner.email, profile.provider, token));
  }
  return { outcome: 'confirm_by_mail', email: owner.email };
}

async function createAccount(db: Db, baseUrl: string, now: Date, profile: ProviderProfile): Promise<Resolution> {
  const [user] = await db('users')
    .insert({ email: profile.verifiedEmail!, email_verified_at: now })
    .onConflict('email')
    .ignore()
    .returning('id');
  // Someone signed up with this address a moment ago: it is theirs, so its owner confirms by mail.
  if (!user) return askOwner(db, baseUrl, now, profile, (await db('users').where({ email: profile.verifiedEmail! }).first('id', 'email'))!);
  await insertIdentity(db, now, profile, user.id);
  return { outcome: 'created', userId: user.id };
}

const hasProvider = async (db: Db, userId: number, provider: SignInProvider) =>
  Boolean(await db('sign_in_identities').where({ user_id: userId, provider }).first('id'));

async function insertIdentity(db: Db, now: Date, profile: ProviderProfile, userId: number): Promise<void> {
  await db('sign_in_identities').insert({
    provider: profile.provider,
    subject: profile.subject,
    user_id: userId,
    email: profile.verifiedEmail!,
    created_at: now,
    last_used_at: now,
  });
}

/** The request behind a mailed link, without using it up (the page asks to confirm first). */
export async function peekLinkRequest(db: Db, now: Date, token: string): Promise<{ provider: SignInProvider; email: string } | null> {
  if (!token || token.length > 100) return null;
  const row = await db('sign_in_link_requests')
    .where({ token_hash: sha256Hex(token) })
    .whereNull('used_at')
    .where('expires_at', '>', now)
    .first('provider', 'email');
  return row ?? null;
}

export type LinkConfirmation =
  | { ok: true; userId: number; provider: SignInProvider }
  | { ok: false; reason: 'dead_link' }
  | { ok: false; reason: 'identity_taken' | 'provider_taken'; provider: SignInProvider };

/**
 * Uses a mailed link: its opener proved the mailbox, so the identity is linked and the address
 * counts as confirmed. Once only; an identity linked meanwhile elsewhere is not moved.
 */
export async function confirmLink(db: Db, now: Date, token: string): Promise<LinkConfirmation> {
  if (!token || token.length > 100) return { ok: false, reason: 'dead_link' };
  return db.transaction(async (trx) => {
    const [request] = await trx('sign_in_link_requests')
      .where({ token_hash: sha256Hex(token) })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now })
      .returning(['user_id', 'provider', 'subject', 'email']);
    if (!request) return { ok: false, reason: 'dead_link' };
    const linked = await trx('sign_in_identities').where({ provider: request.provider, subject: request.subject }).first('user_id');
    if (linked && linked.user_id !== request.user_id) return { ok: false, reason: 'identity_taken', provider: request.provider };
    if (!linked) {
      if (await hasProvider(trx, request.user_id, request.provider))
        return { ok: false, reason: 'provider_taken', provider: request.provider };
      await insertIdentity(
        trx,
        now,
        { provider: request.provider, subject: request.subject, verifiedEmail: request.email },
        request.user_id,
      );
    }
    await trx('users')
      .where({ id: request.user_id })
      .update({ email_verified_at: trx.raw('coalesce(email_verified_at, now())'), updated_at: trx.fn.now() });
    return { ok: true, userId: request.user_id, provider: request.provider };
  });
}

export interface LinkedIdentity {
  provider: SignInProvider;
  email: string;
  linkedAt: Date;
  lastUsedAt: Date | null;
}

export async function listIdentities(db: Db, userId: number): Promise<{ identities: LinkedIdentity[]; hasPassword: boolean }> {
  const [rows, user] = await Promise.all([
    db('sign_in_identities').where({ user_id: userId }).orderBy('provider').select('provider', 'email', 'created_at', 'last_used_at'),
    db('users').where({ id: userId }).first('password_hash'),
  ]);
  return {
    identities: rows.map((r) => ({ provider: r.provider, email: r.email, linkedAt: r.created_at, lastUsedAt: r.last_used_at })),
    hasPassword: Boolean(user?.password_hash),
  };
}

/** Unlinks a provider, unless it is the account's last way to sign in (no password, no other identity). */
export async function unlinkIdentity(db: Db, userId: number, provider: SignInProvider): Promise<void> {
  await db.transaction(async (trx) => {
    // Two unlinks at once must not both see "another way is left".
    const user = await trx('users').where({ id: userId }).forUpdate().first('password_hash');
    const rows = await trx('sign_in_identities').where({ user_id: userId }).select('provider');
    if (!rows.some((r) => r.provider === provider)) throw notFound(`A linked ${provider} sign-in`);
    if (!user?.password_hash && rows.length === 1) {
      throw appError(
        'last_sign_in_method',
        `This is the only way to sign in to your account: set a password or link another provider before unlinking it.`,
      );
    }
    await trx('sign_in_identities').where({ user_id: userId, provider }).delete();
  });
}
