import type { Db } from '../db/knex.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** Queued at most once per key (e.g. `update:12:user:7`); omit for mail that may repeat. */
  dedupeKey?: string;
}

/**
 * Queues a mail in the outbox, inside the caller's transaction when given one. Returns false when
 * a mail with the same dedupe key was queued before. Sending happens elsewhere (SMTP sender).
 */
export async function queueMail(db: Db, mail: OutgoingMail): Promise<boolean> {
  const rows = await db('mail_outbox')
    .insert({ to_address: mail.to, subject: mail.subject, body_text: mail.text, dedupe_key: mail.dedupeKey ?? null })
    .onConflict('dedupe_key')
    .ignore()
    .returning('id');
  return rows.length > 0;
}
