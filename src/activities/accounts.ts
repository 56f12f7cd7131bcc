import type { AppSecrets } from '../auth/secrets.ts';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { prepareExport } from '../domain/account/exports.ts';
import type { Clock } from '../domain/time/clock.ts';

export interface AccountActivityDeps {
  db: Db;
  config: Config;
  /** Signs the download link. */
  secrets: AppSecrets;
  clock: Clock;
}

/** Activities of the account export; thin wrappers over domain code. */
export function createAccountActivities({ db, config, secrets, clock }: AccountActivityDeps) {
  return {
    /** Builds and stores the archive (once) and queues its mail (once); the mail's outbox id, or null when the account is gone. */
    async prepareAccountExport(exportId: number): Promise<number | null> {
      return prepareExport(db, secrets, config.baseUrl, exportId, clock.now());
    },
  };
}

export type AccountActivities = ReturnType<typeof createAccountActivities>;
