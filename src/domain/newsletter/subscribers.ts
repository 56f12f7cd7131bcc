import type { Db } from '../../db/knex.ts';
import { appError } from '../../errors/errors.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { queueMail } from '../../mail/outbox.ts';
import type { Site } from '../sites/sites.ts';
import { hashConfirmToken, isConfirmTokenShaped, newConfirmToken, readUnsubscribeToken, unsubscribeKey } from './links.ts';

/** What subscribing needs beyond the address: the site, the public origin, the time and the limits. */
export interface SubscribeContext {
  site: Pick<Site, 'id' | 'name'>;
  baseUrl: string;
  now: Date;
  confirmResendMinutes: number;
  confirmHours: number;
}

/** The one answer to a subscribe, whatever we know about the address (no enumeration). */
export const SUBSCRIBE_ANSWER = 'If this address is not subscribed yet, a mail with a confirmation link is on its way.';

const normal = (email: string) => email.trim().toLowerCase();

/**
 * Subscribes an address to a site's newsletter, double opt-in: a confirmation mail with a
 * single-use link, and nothing else until the link is used. A confirmed subscriber changes
 * nothing; an unconfirmed one (or one who left) gets a fresh link, at most once per
 * `confirmResendMinutes`; a bounced address gets nothing. The caller answers the same in every
 * case, so the answer tells nobody whether an address is subscribed.
 */
export async function subscribeByEmail(db: Db, rawEmail: string, c: SubscribeContext): Promise<void> {
  const email = normal(rawEmail);
  await db.transaction(async (trx) => {
    if (await trx('newsletter_bounces').where({ email }).first('email')) return;
    await trx('newsletter_subscribers').insert({ site_id: c.site.id, email }).onConflict(['site_id', 'email']).ignore();
    const row = await trx('newsletter_subscribers').where({ site_id: c.site.id, email }).forUpdate().first();
    if (!row || (row.confirmed_at && !row.unsubscribed_at)) return;
    const resendAfter = c.now.getTime() - c.confirmResendMinutes * 60_000;
    if (row.confirm_sent_at && row.confirm_sent_at.getTime() > resendAfter) return;
    const { token, hash } = newConfirmToken();
    await trx('newsletter_subscribers')
      .where({ id: row.id })
      .update({
        confirm_token_hash: hash,
        confirm_sent_at: c.now,
        confirm_expires_at: new Date(c.now.getTime() + c.confirmHours * 3_600_000),
      });
    const link = absoluteUrl(c.baseUrl, paths.newsletterConfirm(token));
    await queueMail(trx, {
      to: email,
      subject: `Confirm your subscription to the ${c.site.name} weekly newsletter`,
      text:
        `Someone, hopefully you, asked to get the weekly newsletter of ${c.site.name} at this address.\n\n` +
        `Confirm it here: ${link}\n\n` +
        `The link works once, for ${c.confirmHours} hours. If you did not ask for it, do nothing: you will not hear from us again.\n`,
    });
  });
}

/** Whether a confirmation link would work now, without using it (a GET: link scanners open links too). */
export async function confirmLinkState(db: Db, token: string, now: Date): Promise<'ok' | 'invalid' | 'expired'> {
  if (!isConfirmTokenShaped(token)) return 'invalid';
  const row = await db('newsletter_subscribers')
    .where({ confirm_token_hash: hashConfirmToken(token) })
    .first('confirm_expires_at');
  if (!row) return 'invalid';
  return row.confirm_expires_at && row.confirm_expires_at.getTime() >= now.getTime() ? 'ok' : 'expired';
}

/** What a used confirmation link confirmed. */
export interface Confirmed {
  email: string;
  site_id: number;
}

/**
 * Confirms a subscription with the token of its link. The link works once: the stored hash is
 * cleared on use, so a second use, like a forged token, is `newsletter_link_invalid`; a link past
 * its time is `newsletter_link_expired` (subscribing again sends a new one).
 */
export async function confirmSubscription(db: Db, token: string, now: Date): Promise<Confirmed> {
  const invalid = () =>
    appError('newsletter_link_invalid', 'This confirmation link was already used, or it is incomplete. Nothing was changed.');
  if (!isConfirmTokenShaped(token)) throw invalid();
  return db.transaction(async (trx) => {
    const row = await trx('newsletter_subscribers')
      .where({ confirm_token_hash: hashConfirmToken(token) })
      .forUpdate()
      .first();
    if (!row) throw invalid();
    if (!row.confirm_expires_at || row.confirm_expires_at.getTime() < now.getTime()) {
      throw appError('newsletter_link_expired', 'This confirmation link has expired. Subscribe again to get a new one.');
    }
    await trx('newsletter_subscribers')
      .where({ id: row.id })
      .update({ confirmed_at: now, unsubscribed_at: null, confirm_token_hash: null, confirm_expires_at: null });
    return { email: row.email, site_id: row.site_id };
  });
}

/** A subscription an unsubscribe link names, for its page. */
export interface SubscriptionOfLink {
  email: string;
  site_id: number;
  subscribed: boolean;
}

/** Reads an unsubscribe link without changing anything (a GET); null when we did not make it. */
export async function openUnsubscribeLink(db: Db, token: string): Promise<SubscriptionOfLink | null> {
  const id = readUnsubscribeToken(await unsubscribeKey(db), token);
  if (id === null) return null;
  const row = await db('newsletter_subscribers').where({ id }).first('email', 'site_id', 'confirmed_at', 'unsubscribed_at');
  if (!row) return null;
  return { email: row.email, site_id: row.site_id, subscribed: row.confirmed_at !== null && row.unsubscribed_at === null };
}

/** Unsubscribes with a link's token, at once and idempotently (a mail client's POST and a person's button may both come). */
export async function unsubscribeByLink(db: Db, token: string, now: Date): Promise<SubscriptionOfLink> {
  const id = readUnsubscribeToken(await unsubscribeKey(db), token);
  const invalid = () => appError('newsletter_link_invalid', 'This unsubscribe link is incomplete or was changed, so nothing was stopped.');
  if (id === null) throw invalid();
  await db('newsletter_subscribers').where({ id }).whereNull('unsubscribed_at').update({ unsubscribed_at: now });
  const link = await openUnsubscribeLink(db, token);
  if (!link) throw invalid();
  return link;
}

/** A signed-in person's subscription to a site's newsletter. */
export interface AccountSubscription {
  /** none: not subscribed; pending: waits for the confirmation link; subscribed: gets the newsletter. */
  status: 'none' | 'pending' | 'subscribed';
  email: string;
}

interface Person {
  userId: number;
  email: string;
  emailVerified: boolean;
}

async function personOf(db: Db, userId: number): Promise<Person> {
  const user = await db('users').where({ id: userId }).first('id', 'email', 'email_verified_at');
  if (!user) throw appError('not_found', 'This account was not found.');
  return { userId: user.id, email: user.email, emailVerified: user.email_verified_at !== null };
}

/** Whether a signed-in person gets the site's newsletter, at their account email. */
export async function readAccountSubscription(db: Db, siteId: number, userId: number): Promise<AccountSubscription> {
  return subscriptionOf(db, siteId, await personOf(db, userId));
}

async function subscriptionOf(db: Db, siteId: number, person: Person): Promise<AccountSubscription> {
  const row = await db('newsletter_subscribers')
    .where({ site_id: siteId, email: normal(person.email) })
    .first('confirmed_at', 'unsubscribed_at', 'confirm_token_hash');
  const status = !row || row.unsubscribed_at ? 'none' : row.confirmed_at ? 'subscribed' : row.confirm_token_hash ? 'pending' : 'none';
  return { status, email: normal(person.email) };
}

/**
 * Subscribes or unsubscribes a signed-in person with one click. Their confirmed account email
 * counts as confirmed; an account whose email is not confirmed yet goes through the mailed link
 * like anyone else.
 */
export async function setAccountSubscription(
  db: Db,
  userId: number,
  subscribed: boolean,
  c: SubscribeContext,
): Promise<AccountSubscription> {
  const person = await personOf(db, userId);
  const email = normal(person.email);
  if (!subscribed) {
    await db('newsletter_subscribers').where({ site_id: c.site.id, email }).whereNull('unsubscribed_at').update({ unsubscribed_at: c.now });
  } else if (person.emailVerified) {
    await db('newsletter_subscribers')
      .insert({ site_id: c.site.id, email, user_id: person.userId, confirmed_at: c.now })
      .onConflict(['site_id', 'email'])
      .merge({ user_id: person.userId, confirmed_at: c.now, unsubscribed_at: null, confirm_token_hash: null, confirm_expires_at: null });
  } else {
    await subscribeByEmail(db, email, c);
  }
  return subscriptionOf(db, c.site.id, person);
}

/**
 * Marks an address bounced (a hard bounce or a complaint reported to NEWSLETTER_BOUNCE_ADDRESS):
 * it is never sent a newsletter again, on any site, and mail queued for it is dropped at delivery.
 * Returns whether the address was newly marked.
 */
export async function markBounced(db: Db, rawEmail: string, reason: string): Promise<boolean> {
  const rows = await db('newsletter_bounces')
    .insert({ email: normal(rawEmail), reason: reason.slice(0, 500) })
    .onConflict('email')
    .ignore()
    .returning('email');
  return rows.length > 0;
}
