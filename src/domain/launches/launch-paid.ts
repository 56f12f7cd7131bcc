import type { Db } from '../../db/knex.ts';
import type { WorkflowStarter } from '../../temporal/client.ts';

/**
 * A paid launch of a listing (idempotent): live at once without a week, otherwise scheduled for
 * the week's Monday; plan `paid`.
 *
 * Minimal stand-in written with the orders work: the launches work replaces this file at merge
 * (same signature), with its week slots and the `listing:{id}` workflow. Build nothing on its body.
 */
export async function launchPaid(
  deps: { db: Db; workflows: WorkflowStarter },
  listingId: number,
  week: string | null,
): Promise<{ status: 'live' | 'scheduled'; launch_week: string | null }> {
  const { db } = deps;
  if (week === null) {
    await db('listings').where({ id: listingId }).update({ status: 'live', plan: 'paid', live_at: db.raw('coalesce(live_at, now())'), updated_at: db.fn.now() });
    return { status: 'live', launch_week: null };
  }
  await db('listings').where({ id: listingId }).update({ status: 'scheduled', plan: 'paid', launch_week: week, updated_at: db.fn.now() });
  return { status: 'scheduled', launch_week: week };
}
