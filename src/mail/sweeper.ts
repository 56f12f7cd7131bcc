import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { deliverOutbox } from './deliver.ts';
import type { Mailer } from './smtp.ts';

export interface MailSweeperOptions {
  db: Db;
  mailer: Mailer;
  intervalMs: number;
  log: Logger;
}

export interface MailSweeper {
  /** Stops the loop; an in-flight sweep ends after its current mail. */
  stop(): Promise<void>;
}

/**
 * Delivers whatever is due in the outbox every interval: mail queued by request handlers
 * (sign-up verification, password reset, ...) that only call queueMail, retries after a
 * back-off, and rows a workflow's delivery left behind. Runs in every worker process;
 * deliverOutbox's row locks keep several sweepers from sending the same mail.
 */
export function startMailSweeper({ db, mailer, intervalMs, log }: MailSweeperOptions): MailSweeper {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const sweep = async () => {
    try {
      const report = await deliverOutbox(db, mailer, { signal: abort.signal });
      if (report.sent + report.retrying + report.failed > 0) log.info({ mail: report }, 'mail sweep');
    } catch (err) {
      log.error({ err }, 'mail sweep failed');
    }
    if (!abort.signal.aborted) timer = setTimeout(() => (current = sweep()), intervalMs);
  };
  current = sweep();
  return {
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await current;
    },
  };
}
