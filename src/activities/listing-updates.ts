import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { sendDueDigests, type DigestBatch } from '../domain/updates/digests.ts';
import { tellFollowersBatch, type FanOutBatch } from '../domain/updates/fan-out.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface ListingUpdateActivityDeps {
  db: Db;
  config: Config;
  /** The mail window and the digests' due times are measured against it. */
  clock: Clock;
}

/** Activities of the listing-update fan-out; thin wrappers over domain code. */
export function createListingUpdateActivities({ db, config, clock }: ListingUpdateActivityDeps) {
  return {
    /** Notifies and queues mail (or holds it for a digest) for the followers after `afterUserId`; idempotent per follower. */
    async tellFollowers(updateId: number, afterUserId: number, limit: number): Promise<FanOutBatch> {
      const input = { updateId, afterUserId, limit, mailWindowSeconds: config.updates.mailWindowSeconds, now: clock.now() };
      return tellFollowersBatch(db, input, config.baseUrl);
    },
    /** Queues the due digests of one listing, `limit` followers at a time. */
    async sendDigests(listingId: number, limit: number): Promise<DigestBatch> {
      return sendDueDigests(db, listingId, limit, config.baseUrl, clock.now());
    },
  };
}

export type ListingUpdateActivities = ReturnType<typeof createListingUpdateActivities>;
