import { executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RankingActivities } from '../activities/ranking.ts';
import { isoWeekLabel, isoWeekMonday, isoWeekStart } from './contracts/weeks.ts';
import { SCHEDULED_START, SITE_KEY } from './contracts/search-attributes.ts';
import { voteScanWorkflowId } from './contracts/workflow-ids.ts';
import { siteVoteScanSummary } from './summaries.ts';

const RANKING_QUEUE = 'ranking';

const { siteKeys, scanVotes } = proxyActivities<RankingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

export interface VoteScanInput {
  /** ISO week to scan (e.g. 2026-W48); default the week of the scheduled time (the live week). */
  week?: string;
}

export interface SiteScanResult {
  siteKey: string;
  week: string;
  votes: number;
  detected: number;
  raised: number;
  cleared: number;
  discounted: number;
}

/**
 * Run by the Schedule `vote-scan` every hour: scans the live week of every site for vote rings,
 * one child workflow `vote-scan:{siteKey}:{week}` per site (search attribute `SiteKey`). The
 * weekly close scans the finished week once more before it freezes the results.
 */
export async function voteScanWorkflow(input: VoteScanInput = {}): Promise<SiteScanResult[]> {
  const week = input.week ?? isoWeekLabel(isoWeekStart(scheduledTime()));
  const results: SiteScanResult[] = [];
  for (const siteKey of await siteKeys()) {
    results.push(
      await executeChild(siteVoteScanWorkflow, {
        workflowId: voteScanWorkflowId(siteKey, week),
        taskQueue: RANKING_QUEUE,
        args: [{ siteKey, week }],
        typedSearchAttributes: [{ key: SITE_KEY, value: siteKey }],
        staticSummary: siteVoteScanSummary(siteKey, week),
      }),
    );
  }
  return results;
}

/** Scans one site's week: runs the detectors and discounts the flagged votes (idempotent). */
export async function siteVoteScanWorkflow(input: { siteKey: string; week: string }): Promise<SiteScanResult> {
  const monday = isoWeekMonday(input.week);
  if (!monday) throw new Error(`not an ISO week: ${input.week}`);
  const outcome = await scanVotes(input.siteKey, monday);
  return { siteKey: input.siteKey, week: input.week, ...outcome };
}

function scheduledTime(): Date {
  return workflowInfo().typedSearchAttributes.get(SCHEDULED_START) ?? new Date(workflowInfo().startTime);
}
