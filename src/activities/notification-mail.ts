import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { sendNoticeMail, type NoticeMailResult } from '../domain/comments/notice-mail.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface NotificationMailActivityDeps {
  db: Db;
  config: Config;
  /** A batch is due against it. */
  clock: Clock;
}

/** The activity of a person's comment mail batch; a thin wrapper over the domain. */
export function createNotificationMailActivities({ db, config, clock }: NotificationMailActivityDeps) {
  return {
    /** Queues the person's batch as one mail when it is due; idempotent (locked batch, dedupe key). */
    async sendNotificationMail(userId: number): Promise<NoticeMailResult> {
      return sendNoticeMail(db, userId, config.baseUrl, clock.now());
    },
  };
}

export type NotificationMailActivities = ReturnType<typeof createNotificationMailActivities>;
