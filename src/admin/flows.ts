import type { z } from 'zod';
import type { Db } from '../db/knex.ts';
import { staffListStuckFlowsOp } from '../operations/staff-flows.ts';
import { runOperationFromShell, type ShellServices } from './run-operation.ts';

export const FLOWS_USAGE = `  npm run admin -- flows:stuck   (drafts, orders, claims, launches and mail that are stuck: why, the command that fixes it, the Temporal UI link)`;

type StuckItem = z.output<typeof staffListStuckFlowsOp.output>['items'][number];

/**
 * Runs a flows:* command; returns null for other commands. The list is the console's
 * (staff_list_stuck_flows), asked of every site; mail and workflow starts belong to no site and
 * come once.
 */
export async function runFlowsCommand(db: Db, services: ShellServices, command: string | undefined): Promise<number | null> {
  if (command !== 'flows:stuck') return null;
  const seen = new Set<string>();
  const stuck: StuckItem[] = [];
  for (const site of await db('sites').orderBy('id').pluck('key')) {
    const { items } = await runOperationFromShell(services, staffListStuckFlowsOp, {}, site);
    for (const item of items) {
      if (seen.has(`${item.kind} ${item.ref}`)) continue;
      seen.add(`${item.kind} ${item.ref}`);
      stuck.push(item);
    }
  }
  if (stuck.length === 0) {
    console.log('nothing is stuck');
    return 0;
  }
  for (const flow of stuck) console.log(formatStuck(flow));
  console.log(`${stuck.length} stuck`);
  return 0;
}

/** One line per flow: kind and id, why, the fix, the UI link (tab-separated for scripts). */
export function formatStuck(flow: StuckItem): string {
  return `${flow.kind} ${flow.ref}\t${flow.cause}\tfix: ${flow.command}\t${flow.temporal_url ?? '-'}`;
}
