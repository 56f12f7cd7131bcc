import type { Db } from '../db/knex.ts';

/**
 * What makes a mail stoppable (RFC 8058): who it is for, its kind (a `mail_stops.kind`), the
 * listing it is about when the kind is stopped per listing, and the one-click URL that stops it.
 * Delivery drops the mail when its recipient stopped the kind after it was queued, and sends the
 * URL as `List-Unsubscribe` with `List-Unsubscribe-Post`.
 */
export interface MailUnsubscribe {
  recipientId: number;
  kind: string;
  listingId: number | null;
  url: string;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** Queued at most once per key (e.g. `update:12:user:7`); omit for mail that may repeat. */
  dedupeKey?: string;
  /** Set on every mail that is not a direct answer to the person's own action. */
  unsubscribe?: MailUnsubscribe;
  /** A newsletter mail (docs/newsletter.md): its subscriber, one-click URL, HTML part and bounce address. */
  newsletter?: NewsletterMail;
}

/**
 * What makes a newsletter mail: the subscriber it is for (delivery drops the mail once they left
 * or their address bounced), the one-click URL sent as `List-Unsubscribe`, an HTML alternative to
 * the text, and the envelope sender (Return-Path) bounces and complaints go to.
 */
export interface NewsletterMail {
  subscriberId: number;
  unsubscribeUrl: string;
  html: string;
  envelopeFrom: string | null;
}

/**
 * Queues a mail in the outbox, inside the caller's transaction when given one. Returns false when
 * a mail with the same dedupe key was queued before. Sending happens elsewhere (SMTP sender).
 */
export async function queueMail(db: Db, mail: OutgoingMail): Promise<boolean> {
  const stop = mail.unsubscribe;
  const rows = await db('mail_outbox')
    .insert({
      to_address: mail.to,
      subject: mail.subject,
      body_text: mail.text,
      dedupe_key: mail.dedupeKey ?? null,
      ...(stop ? { recipient_id: stop.recipientId, mail_kind: stop.kind, listing_id: stop.listingId, list_unsubscribe: stop.url } : {}),
      ...(mail.newsletter
        ? {
            newsletter_subscriber_id: mail.newsletter.subscriberId,
            list_unsubscribe: mail.newsletter.unsubscribeUrl,
            body_html: mail.newsletter.html,
            envelope_from: mail.newsletter.envelopeFrom,
          }
        : {}),
    })
    .onConflict('dedupe_key')
    .ignore()
    .returning('id');
  return rows.length > 0;
}
