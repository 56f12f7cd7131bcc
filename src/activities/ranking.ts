import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { freezeWeek, tellTopOwners, type FreezeOutcome } from '../domain/ranking/weekly-close.ts';
import { readSiteByKey, readSites } from '../domain/sites/sites.ts';
import { scanWeek, type ScanOutcome } from '../domain/votes/scan.ts';
import { AppError } from '../errors/errors.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface RankingActivityDeps {
  db: Db;
  config: Config;
  /** Whether a week is over is decided against it. */
  clock: Clock;
}

/** Activities of the weekly close and the vote scan; thin wrappers over domain code. */
export function createRankingActivities({ db, config, clock }: RankingActivityDeps) {
  return {
    /** Keys of every site, in id order. */
    async siteKeys(): Promise<string[]> {
      return (await readSites(db)).map((s) => s.key);
    },
    /** Freezes a finished week of a site; idempotent. A week not over yet is refused for good. */
    async freezeWeek(siteKey: string, weekStart: string): Promise<FreezeOutcome> {
      try {
        return await freezeWeek(db, await siteId(db, siteKey), weekStart, clock.now());
      } catch (err) {
        if (err instanceof AppError && err.status < 500) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      }
    },
    /** Runs the vote detectors over a site's launch week and discounts what they flag; idempotent. */
    async scanVotes(siteKey: string, weekStart: string): Promise<ScanOutcome> {
      return scanWeek(db, await siteId(db, siteKey), weekStart);
    },
    /** Notifies the top three owners of a frozen week and queues their mail; idempotent. */
    async tellTopOwners(siteKey: string, weekStart: string): Promise<{ told: number; mailIds: number[] }> {
      return tellTopOwners(db, await siteId(db, siteKey), weekStart, config.baseUrl);
    },
  };
}

async function siteId(db: Db, key: string): Promise<number> {
  const site = await readSiteByKey(db, key);
  if (!site) throw ApplicationFailure.nonRetryable(`There is no site with the key "${key}".`, 'unknown_site');
  return site.id;
}

export type RankingActivities = ReturnType<typeof createRankingActivities>;
