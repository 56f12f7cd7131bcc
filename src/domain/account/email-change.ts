import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/knex.ts';
import { appError, conflict, tooManyRequests } from '../../errors/errors.ts';
import { sha256Hex } from '../../lib/hash.ts';
import { queueMail } from '../../mail/outbox.ts';
import { emailChangeConfirmMail, emailChangeNoticeMail } from './mails.ts';

/** The confirmation link at the new address works once, for this long. */
export const EMAIL_CHANGE_LIFETIME_MS = 24 * 3600 * 1000;
/** Requests per account and window: the form cannot be used to flood someone's mailbox. */
const MAX_REQUESTS = 3;
const REQUEST_WINDOW_MS = 15 * 60 * 1000;

const hashToken = (token: string) => sha256Hex(token);

/**
 * Asks to move the account to `newEmail`: a single-use link goes to the new address and a notice
 * to the current one. Until the link is opened nothing changes (sign-in, mail, invoices keep the
 * current address). 409 email_taken when an account has the address already.
 */
export async function requestEmailChange(
  db: Db,
  baseUrl: string,
  userId: number,
  newEmail: string,
  now: Date,
): Promise<{ expiresAt: Date }> {
  return db.transaction(async (trx) => {
    const user = await trx('users').where({ id: userId }).forUpdate().first('email');
    if (!user) throw appError('not_found', 'The account was not found.');
    if (user.email.toLowerCase() === newEmail.toLowerCase()) throw conflict('email_taken', 'That is already your email address.');
    if (await trx('users').where({ email: newEmail }).first('id'))
      throw conflict('email_taken', 'Another account uses that email address.');
    const [{ count }] = await trx('account_email_changes')
      .where({ user_id: userId })
      .where('created_at', '>', new Date(now.getTime() - REQUEST_WINDOW_MS))
      .count({ count: '*' });
    if (Number(count) >= MAX_REQUESTS)
      throw tooManyRequests('Too many email changes asked for: wait a quarter of an hour.', REQUEST_WINDOW_MS / 1000);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + EMAIL_CHANGE_LIFETIME_MS);
    await trx('account_email_changes').insert({
      user_id: userId,
      new_email: newEmail,
      token_hash: hashToken(token),
      created_at: now,
      expires_at: expiresAt,
    });
    await queueMail(trx, emailChangeConfirmMail(baseUrl, newEmail, token));
    await queueMail(trx, emailChangeNoticeMail(baseUrl, user.email, newEmail));
    return { expiresAt };
  });
}

/**
 * Opens a confirmation link: the account's address becomes the new one, confirmed, and every
 * other pending change of the account stops working. 410 email_link_invalid when the link is
 * unknown, used or expired; 409 email_taken when someone took the address meanwhile.
 */
export async function confirmEmailChange(db: Db, token: string, now: Date): Promise<{ userId: number; email: string }> {
  return db.transaction(async (trx) => {
    const row =
      token.length <= 100
        ? await trx('account_email_changes')
            .where({ token_hash: hashToken(token) })
            .forUpdate()
            .first()
        : undefined;
    if (!row || row.used_at !== null || row.expires_at <= now) {
      throw appError('email_link_invalid', 'This email change link has expired or was used already. Ask for the change again on /account.');
    }
    if (await trx('users').where({ email: row.new_email }).whereNot({ id: row.user_id }).first('id')) {
      throw conflict('email_taken', 'Another account took that email address meanwhile.');
    }
    await trx('users').where({ id: row.user_id }).update({ email: row.new_email, email_verified_at: now, updated_at: now });
    await trx('account_email_changes').where({ user_id: row.user_id }).whereNull('used_at').update({ used_at: now });
    return { userId: row.user_id, email: row.new_email };
  });
}
