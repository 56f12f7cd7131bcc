import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { findStuckFlows, type StuckFlow } from '../domain/flows/stuck.ts';
import type { WorkflowStarter } from '../domain/ports.ts';

export const FLOWS_USAGE = `  npm run admin -- flows:stuck   (drafts, orders, claims, launches and mail that are stuck: why, the command that fixes it, the Temporal UI link)`;

export interface FlowsDeps {
  config: Config;
  workflows: Pick<WorkflowStarter, 'workflowStatus'>;
}

/** Runs a flows:* command; returns null for other commands. */
export async function runFlowsCommand(db: Db, deps: FlowsDeps, command: string | undefined): Promise<number | null> {
  if (command !== 'flows:stuck') return null;
  const stuck = await findStuckFlows(db, deps.workflows);
  if (stuck.length === 0) {
    console.log('nothing is stuck');
    return 0;
  }
  for (const flow of stuck) console.log(formatStuck(flow, deps.config));
  console.log(`${stuck.length} stuck`);
  return 0;
}

/** One line per flow: kind and id, why, the fix, the UI link (tab-separated for scripts). */
export function formatStuck(flow: StuckFlow, config: Pick<Config, 'temporal'>): string {
  const link = flow.workflowId ? workflowUiLink(config, flow.workflowId) : '-';
  return `${flow.kind} ${flow.ref}\t${flow.reason}\tfix: ${flow.fix}\t${link}`;
}

/** The Temporal UI page of a workflow (its latest run). */
export function workflowUiLink(config: Pick<Config, 'temporal'>, workflowId: string): string {
  const { uiUrl, namespace } = config.temporal;
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}
