import type { Db } from '../db/knex.ts';
import type { PurgeKind } from '../workflows/contracts/purge-kinds.ts';
import { purgeBatch } from '../domain/maintenance/purge.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface MaintenanceActivityDeps {
  db: Db;
  /** What "dead" is measured against. */
  clock: Clock;
}

/** Activities of the daily `maintenance` workflow; thin wrappers over domain code. */
export function createMaintenanceActivities({ db, clock }: MaintenanceActivityDeps) {
  return {
    /** Deletes at most `limit` dead rows of one kind (expired keys, sessions, links...); returns how many. */
    async purgeBatch(kind: PurgeKind, limit: number): Promise<number> {
      return purgeBatch(db, kind, limit, clock.now());
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
