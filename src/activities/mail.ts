import { Context } from '@temporalio/activity';
import type { Db } from '../db/knex.ts';
import { deliverOutbox, type DeliveryReport } from '../mail/deliver.ts';
import type { Mailer } from '../mail/smtp.ts';

export interface MailActivityDeps {
  db: Db;
  /** Null without SMTP_URL: mail then stays in the outbox. */
  mailer: Mailer | null;
}

/** Mail delivery for any workflow that queued mail; register it on every task queue that needs it. */
export function createMailActivities({ db, mailer }: MailActivityDeps) {
  return {
    /**
     * Sends the given outbox rows that are still unsent and due. SMTP failures are recorded on
     * the rows (the worker's sweep retries them), so they never fail the calling workflow.
     */
    async deliverMail(ids: number[]): Promise<DeliveryReport> {
      if (!mailer || ids.length === 0) return { sent: 0, retrying: 0, failed: 0 };
      const ctx = Context.current();
      const report = await deliverOutbox(db, mailer, {
        ids,
        limit: ids.length,
        signal: ctx.cancellationSignal,
        onProgress: (progress) => ctx.heartbeat(progress),
      });
      // Stopped early (worker shutdown): fail this attempt so that a retry sends the rest.
      ctx.cancellationSignal.throwIfAborted();
      return report;
    },
  };
}

export type MailActivities = ReturnType<typeof createMailActivities>;
