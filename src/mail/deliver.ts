import type { Db } from '../db/knex.ts';
import { isPermanentSmtpFailure, type Mailer, type OutboxMail } from './smtp.ts';

export interface DeliverOptions {
  /** Only these outbox rows (a workflow delivering what it queued); default: any due row. */
  ids?: number[];
  /** At most this many send attempts in this call. @default 1000 */
  limit?: number;
  /** Parallel send lanes (each holds one row lock and one pooled SMTP connection). @default 4 */
  lanes?: number;
  /** Stops between two mails when aborted (worker shutdown, activity cancellation). */
  signal?: AbortSignal;
  /** Called after each attempt (activities heartbeat with it). */
  onProgress?: (report: DeliveryReport) => void;
}

export interface DeliveryReport {
  sent: number;
  /** Failed for now; due again after a back-off. */
  retrying: number;
  /** Refused for good (5xx) or out of attempts. */
  failed: number;
}

export const MAX_ATTEMPTS = 8;
const FIRST_RETRY_SECONDS = 30;
const MAX_RETRY_SECONDS = 3600;

/**
 * Sends due outbox mail, each row at most once. A row is claimed with FOR UPDATE SKIP LOCKED in
 * its own transaction, sent, and marked sent in that transaction right after the SMTP server
 * accepted it: concurrent deliverers (workflows, sweepers, other workers) never take the same
 * row, and a process that dies mid-send releases its lock so another can take over. The only
 * window for a duplicate is a crash between the server's 250 and our commit.
 */
export async function deliverOutbox(db: Db, mailer: Mailer, options: DeliverOptions = {}): Promise<DeliveryReport> {
  const report: DeliveryReport = { sent: 0, retrying: 0, failed: 0 };
  let budget = options.limit ?? 1000;
  const lane = async () => {
    while (budget > 0 && !options.signal?.aborted) {
      budget -= 1;
      const outcome = await deliverOne(db, mailer, options.ids);
      if (!outcome) return;
      if (outcome === 'withheld') continue; // nothing was sent or tried
      report[outcome] += 1;
      options.onProgress?.(report);
    }
  };
  await Promise.all(Array.from({ length: options.lanes ?? 4 }, lane));
  return report;
}

interface DueMail {
  id: number;
  to_address: string;
  subject: string;
  body_text: string;
  attempts: number;
  recipient_id: number | null;
  mail_kind: string | null;
  listing_id: number | null;
  list_unsubscribe: string | null;
  body_html: string | null;
  envelope_from: string | null;
  newsletter_subscriber_id: number | null;
}

/**
 * Whether the person a stoppable mail is for stopped its kind (for every listing, or for the one
 * it is about). Checked here, at delivery, so a stop also holds back what was queued before it.
 */
async function stoppedSinceQueued(trx: Db, row: DueMail): Promise<boolean> {
  if (row.newsletter_subscriber_id !== null) return newsletterStopped(trx, row.newsletter_subscriber_id);
  if (row.mail_kind === null || row.recipient_id === null) return false;
  const stop = await trx('mail_stops')
    .where({ user_id: row.recipient_id, kind: row.mail_kind })
    .andWhere((q) => {
      q.whereNull('listing_id');
      if (row.listing_id !== null) q.orWhere('listing_id', row.listing_id);
    })
    .first('id');
  return stop !== undefined;
}

/** Whether a newsletter subscriber left, or their address bounced, since their mail was queued. */
async function newsletterStopped(trx: Db, subscriberId: number): Promise<boolean> {
  const live = await trx('newsletter_subscribers as s')
    .where('s.id', subscriberId)
    .whereNotNull('s.confirmed_at')
    .whereNull('s.unsubscribed_at')
    .whereNotExists((q) => q.select(trx.raw('1')).from('newsletter_bounces as b').whereRaw('b.email = s.email'))
    .first('s.id');
  return live === undefined;
}

/** Claims, sends and records one due mail; null when none is due. */
function deliverOne(db: Db, mailer: Mailer, ids: number[] | undefined): Promise<keyof DeliveryReport | 'withheld' | null> {
  return db.transaction(async (trx) => {
    const query = trx('mail_outbox')
      .whereNull('sent_at')
      .whereNull('failed_at')
      .where('next_attempt_at', '<=', trx.fn.now())
      .orderBy('id')
      .forUpdate()
      .skipLocked()
      .first(
        'id',
        'to_address',
        'subject',
        'body_text',
        'attempts',
        'recipient_id',
        'mail_kind',
        'listing_id',
        'list_unsubscribe',
        'body_html',
        'envelope_from',
        'newsletter_subscriber_id',
      );
    if (ids) query.whereIn('id', ids);
    const row: DueMail | undefined = await query;
    if (!row) return null;
    if (await stoppedSinceQueued(trx, row)) {
      // Unsubscribing is honoured at once, also for mail queued before it: the mail is dropped
      // (deleted, as a closed claim drops its unsent mail) instead of sent or left as stuck.
      await trx('mail_outbox').where({ id: row.id }).delete();
      return 'withheld';
    }
    const mail: OutboxMail = {
      id: row.id,
      to: row.to_address,
      subject: row.subject,
      text: row.body_text,
      listUnsubscribe: row.list_unsubscribe,
      html: row.body_html,
      envelopeFrom: row.envelope_from,
    };
    const attempts = row.attempts + 1;
    try {
      await mailer.send(mail);
    } catch (err) {
      const final = isPermanentSmtpFailure(err) || attempts >= MAX_ATTEMPTS;
      await trx('mail_outbox')
        .where({ id: row.id })
        .update({
          attempts,
          last_error: String((err as Error)?.message ?? err).slice(0, 1000),
          failed_at: final ? trx.fn.now() : null,
          next_attempt_at: trx.raw(`now() + make_interval(secs => ?)`, [retryDelaySeconds(attempts)]),
        });
      return final ? 'failed' : 'retrying';
    }
    await trx('mail_outbox').where({ id: row.id }).update({ attempts, sent_at: trx.fn.now(), last_error: null });
    return 'sent';
  });
}

/** Exponential back-off: 30 s, 1 min, 2 min, ... capped at an hour. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(FIRST_RETRY_SECONDS * 2 ** (attempts - 1), MAX_RETRY_SECONDS);
}
