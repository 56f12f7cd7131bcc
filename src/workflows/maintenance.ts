import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';
import { PURGE_KINDS, type PurgeKind } from './contracts/purge-kinds.ts';

const STEP_TIMEOUT = '5 minutes';

const { purgeBatch } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface MaintenanceInput {
  /** Rows deleted per activity call (one short statement each). */
  batchSize?: number;
  /** Batches per kind and run at most: keeps the history small; what is left goes the next day. */
  maxBatches?: number;
}

export type MaintenanceResult = Record<PurgeKind, number>;

/**
 * Run by the Schedule `maintenance` every day: purges expired idempotency keys, OAuth rows, web
 * sessions, account email links, claim email links and spent rate-limit windows, reduces vote signals older than
 * 30 days to per-listing counts and deletes the weekly network keys no kept signal needs, and deletes the hashes that counted
 * a view once per client and hour with their daily keys, in batches. Every step is idempotent, so a
 * run retried or run twice deletes nothing twice. Returns the rows deleted per kind.
 */
export async function maintenanceWorkflow(input: MaintenanceInput = {}): Promise<MaintenanceResult> {
  const batchSize = input.batchSize ?? 1000;
  const maxBatches = input.maxBatches ?? 100;
  const deleted = {} as MaintenanceResult;
  for (const kind of PURGE_KINDS) {
    deleted[kind] = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const n = await purgeBatch(kind, batchSize);
      deleted[kind] += n;
      if (n < batchSize) break;
    }
  }
  return deleted;
}
