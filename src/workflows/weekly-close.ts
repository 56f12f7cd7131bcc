import { SCHEDULED_START, SITE_KEY } from './contracts/search-attributes.ts';
import { weeklyCloseWorkflowId } from './contracts/workflow-ids.ts';
import { siteWeeklyCloseSummary } from './summaries.ts';
import { executeChild, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { NewsletterActivities } from '../activities/newsletter.ts';
import type { RankingActivities } from '../activities/ranking.ts';
import { addWeeks, isoWeekLabel, isoWeekMonday, isoWeekStart } from './contracts/weeks.ts';
import { deliverMail } from './mail-delivery.ts';

const STEP_TIMEOUT = '1 minute';
const RANKING_QUEUE = 'ranking';

const { siteKeys, freezeWeek, tellTopOwners, scanVotes } = proxyActivities<RankingActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const { openNewsletterIssue } = proxyActivities<NewsletterActivities>({
  startToCloseTimeout: STEP_TIMEOUT,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
export interface WeeklyCloseInput {
  /** ISO week to close (e.g. 2026-W47); default the week before the scheduled time. */
  week?: string;
}

export interface SiteCloseResult {
  siteKey: string;
  week: string;
  results: number;
  inserted: number;
  told: number;
}

/**
 * Run by the Schedule `weekly-close` every Monday 00:00 UTC: closes the week that just ended on
 * every site, one child workflow `weekly-close:{siteKey}:{week}` per site (search attribute
 * `SiteKey`). The week comes from the scheduled time, so a run caught up late still closes the
 * right week.
 */
export async function weeklyCloseWorkflow(input: WeeklyCloseInput = {}): Promise<SiteCloseResult[]> {
  const week = input.week ?? isoWeekLabel(addWeeks(isoWeekStart(scheduledTime()), -1));
  const results: SiteCloseResult[] = [];
  for (const siteKey of await siteKeys()) {
    results.push(
      await executeChild(siteWeeklyCloseWorkflow, {
        workflowId: weeklyCloseWorkflowId(siteKey, week),
        taskQueue: RANKING_QUEUE,
        args: [{ siteKey, week }],
        typedSearchAttributes: [{ key: SITE_KEY, value: siteKey }],
        staticSummary: siteWeeklyCloseSummary(siteKey, week),
      }),
    );
  }
  return results;
}

/**
 * Closes one site's week: scans its votes once more (the last hour since the hourly scan), freezes
 * its ranking into weekly_results, tells the owners of the top three and sends their mail, then
 * opens the week's newsletter issue.
 * Every step is idempotent, so running it again changes nothing.
 */
export async function siteWeeklyCloseWorkflow(input: { siteKey: string; week: string }): Promise<SiteCloseResult> {
  const monday = isoWeekMonday(input.week);
  if (!monday) throw new Error(`not an ISO week: ${input.week}`);
  if (patched('final-vote-scan')) await scanVotes(input.siteKey, monday);
  const frozen = await freezeWeek(input.siteKey, monday);
  const { told, mailIds } = await tellTopOwners(input.siteKey, monday);
  if (mailIds.length > 0) await deliverMail(mailIds);
  // The week's newsletter (its own workflow, started through the workflow-start outbox).
  if (patched('newsletter')) await openNewsletterIssue(input.siteKey, monday);
  return { siteKey: input.siteKey, week: input.week, results: frozen.results, inserted: frozen.inserted, told };
}

function scheduledTime(): Date {
  return workflowInfo().typedSearchAttributes.get(SCHEDULED_START) ?? new Date(workflowInfo().startTime);
}
