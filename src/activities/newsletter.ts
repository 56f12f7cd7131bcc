import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { openIssue, sendIssueBatch, type IssueBatch } from '../domain/newsletter/sending.ts';
import { readSiteByKey } from '../domain/sites/sites.ts';
import { isoWeekMonday } from '../workflows/contracts/weeks.ts';

export interface NewsletterActivityDeps {
  db: Db;
  config: Config;
}

/** Activities of the weekly newsletter; thin wrappers over domain code. */
export function createNewsletterActivities({ db, config }: NewsletterActivityDeps) {
  return {
    /** Opens the site's issue about a closed week and records its workflow's start; once per site and week. */
    async openNewsletterIssue(siteKey: string, weekStart: string): Promise<boolean> {
      const { batchSize, perMinute } = config.newsletter;
      return openIssue(db, await siteOf(db, siteKey), weekStart, { batchSize, perMinute });
    },
    /** Queues the issue for the next batch of subscribers after `afterId`; safe to repeat. */
    async sendNewsletterBatch(siteKey: string, week: string, afterId: number, batchSize: number): Promise<IssueBatch> {
      const monday = isoWeekMonday(week);
      if (!monday) throw ApplicationFailure.nonRetryable(`not an ISO week: ${week}`, 'validation_failed');
      return sendIssueBatch(db, await siteOf(db, siteKey), monday, afterId, batchSize, {
        baseUrl: config.baseUrl,
        bounceAddress: config.newsletter.bounceAddress,
      });
    },
  };
}

async function siteOf(db: Db, key: string) {
  const site = await readSiteByKey(db, key);
  if (!site) throw ApplicationFailure.nonRetryable(`There is no site with the key "${key}".`, 'unknown_site');
  return site;
}

export type NewsletterActivities = ReturnType<typeof createNewsletterActivities>;
