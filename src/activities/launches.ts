import type { Dispatcher } from 'undici';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { AppError } from '../errors/errors.ts';
import { runBadgeCheck, type BadgeCheckDeps } from '../domain/launches/badge-check.ts';
import { advanceFreeListing } from '../domain/launches/free-route.ts';
import { afterLaunchCheck, launchStateOf, launchWhenDue, type LaunchState } from '../domain/launches/launch-steps.ts';
import { tellOwner } from '../domain/launches/owner-notices.ts';
import type { ListingRow } from '../domain/listings/listings.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface LaunchActivityDeps {
  db: Db;
  config: Config;
  /** The process's guarded agent for badge pages. */
  badgeAgent: Dispatcher;
  /** Whether a launch week has started, a badge's grace is over, a free week is still ahead. */
  clock: Clock;
}

/** Activities of `listing:{id}`; thin wrappers over src/domain/launches. */
export function createLaunchActivities({ db, config, badgeAgent, clock }: LaunchActivityDeps) {
  const deps: BadgeCheckDeps = { db, baseUrl: config.baseUrl, crawl: config.crawl, badgeAgent, clock };
  const current = async (listingId: number) => launchStateOf(await db('listings').where({ id: listingId }).first());
  /** Moves a waiting free listing on; a refusal (no free week left) leaves it waiting. */
  const advance = async (listingId: number): Promise<LaunchState> => {
    try {
      return launchStateOf(await advanceFreeListing(db, config.baseUrl, listingId, clock.now()));
    } catch (err) {
      if (err instanceof AppError && err.status < 500) return current(listingId);
      throw err;
    }
  };
  return {
    advanceLaunch: advance,
    /** A scheduled re-check: the badge (when that is what it waits for), then move on if it can. */
    async recheckAndAdvance(listingId: number): Promise<LaunchState> {
      const row: ListingRow | undefined = await db('listings').where({ id: listingId }).first();
      if (row?.plan === 'free' && row.status === 'awaiting_badge') await runBadgeCheck(deps, row, 'schedule');
      return advance(listingId);
    },
    launchWhenDue: (listingId: number) => launchWhenDue(deps, listingId),
    afterLaunchCheck: (listingId: number, graceMs: number) => afterLaunchCheck(deps, listingId, graceMs),
    /** Tells the owner that scheduled re-checks are over (the listing keeps waiting for "Check now"). */
    async tellRechecksOver(listingId: number, waitingSince: string): Promise<void> {
      await db.transaction((trx) =>
        tellOwner(trx, config.baseUrl, listingId, {
          dedupeKey: `rechecks-over:${listingId}:${waitingSince}`,
          subject: 'your free launch is still waiting',
          message:
            'We checked your site for our badge (and your founder profile) for 7 days without success, and stopped checking by ourselves. ' +
            'Your listing keeps waiting: fix what is missing, then use "Check now" on your launch panel.',
        }),
      );
    },
  };
}

export type LaunchActivities = ReturnType<typeof createLaunchActivities>;
