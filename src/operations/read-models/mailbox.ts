import { parseId } from '../../domain/fields.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the development mailbox pages read (/dev/mailbox, served only where DEV_MAILBOX allows
 * it): the mail outbox, newest first, and one mail by its id. No operation exposes the outbox.
 */

/** One outbox row as the list shows it. */
export interface OutboxEntry {
  id: number;
  to_address: string;
  subject: string;
  created_at: Date;
}

/** One mail in full. */
export interface OutboxMail extends OutboxEntry {
  body_text: string;
  sent_at: Date | null;
}

/** The last `limit` mails of the outbox, newest first. */
export function latestMails(c: Pick<OperationContext, 'db'>, limit: number): Promise<OutboxEntry[]> {
  return c.db('mail_outbox').orderBy('id', 'desc').limit(limit).select('id', 'to_address', 'subject', 'created_at');
}

/** The mail with this id (as written in the path), or undefined (also for an id that is no number). */
export async function outboxMail(c: Pick<OperationContext, 'db'>, id: string | undefined): Promise<OutboxMail | undefined> {
  const number = parseId(id);
  return number ? ((await c.db('mail_outbox').where({ id: number }).first()) as OutboxMail | undefined) : undefined;
}
