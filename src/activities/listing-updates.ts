import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { sendDueDigests, type DigestBatch } from '../domain/updates/digests.ts';
import { tellFollowersBatch, type FanOutBatch } from '../domain/updates/fan-out.ts';

export interface ListingUpdateActivityDeps {
  db: Db;
  config: Config;
}

/** Activities of the listing-update fan-out; thin wrappers over domain code. */
export function createListingUpdateActivities({ db, config }: ListingUpdateActivityDeps) {
  return {
    /** Notifies and queues mail (or holds it for a digest) for the followers after `afterUserId`; idempotent per follower. */
    async tellFollowers(updateId: number, afterUserId: number, limit: number): Promise<FanOutBatch> {
      return tellFollowersBatch(db, { updateId, afterUserId, limit, mailWindowSeconds: config.updates.mailWindowSeconds }, config.baseUrl);
    },
    /** Queues the due digests of one listing, `limit` followers at a time. */
    async sendDigests(listingId: number, limit: number): Promise<DigestBatch> {
      return sendDueDigests(db, listingId, limit, config.baseUrl);
    },
  };
}

export type ListingUpdateActivities = ReturnType<typeof createListingUpdateActivities>;
