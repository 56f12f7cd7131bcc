import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { AppError } from '../errors/errors.ts';
import { importListing } from '../domain/listings/import-listing.ts';
import type { Clock } from '../domain/time/clock.ts';
import type { MediaStore } from '../domain/media/media-port.ts';

export interface ListingImportActivityDeps {
  db: Db;
  config: Pick<Config, 'crawl' | 'baseUrl'>;
  media: MediaStore;
  /** An imported listing goes live in the clock's week. */
  clock: Clock;
}

/** Activities of the listing import workflow; thin wrappers over domain code. */
export function createListingImportActivities({ db, config, media, clock }: ListingImportActivityDeps) {
  return {
    async importCompanyListing(input: { siteId: number; url: string }): Promise<{ id: number; slug: string }> {
      const info = Context.current().info;
      try {
        return await importListing(db, config.crawl, media, {
          ...input,
          baseUrl: config.baseUrl,
          now: clock.now(),
          // A retry after an attempt whose commit went through finds its own listing again.
          resumeSince: info.attempt > 1 ? new Date(info.scheduledTimestampMs) : undefined,
        });
      } catch (err) {
        if (err instanceof AppError) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      }
    },
  };
}

export type ListingImportActivities = ReturnType<typeof createListingImportActivities>;
