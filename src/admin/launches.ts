import type { Dispatcher } from 'undici';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { runBadgeCheck } from '../domain/launches/badge-check.ts';
import { advanceFreeListing } from '../domain/launches/free-route.ts';
import { siteKeyOf } from '../domain/launches/owner-actions.ts';
import { queuePositions } from '../domain/launches/slots.ts';
import { isoWeekLabel, isoWeekStart, isoWeekMonday } from '../workflows/contracts/weeks.ts';
import type { ListingRow } from '../domain/listings/listings.ts';
import { badRequest, notFound } from '../errors/errors.ts';
import type { Clock } from '../domain/time/clock.ts';
import type { WorkflowStarter } from '../domain/ports.ts';

export const LAUNCHES_USAGE = `  npm run admin -- launches:list [--week YYYY-Www]   (a week's launches; without --week: waiting, queued and this week's)
  npm run admin -- launches:recheck --listing N        (checks the badge, then signals listing:{N}, restarting it when it is closed)`;

export const LAUNCH_OPTIONS = {
  week: { type: 'string' },
  listing: { type: 'string' },
} as const;

export interface LaunchDeps {
  db: Db;
  config: Pick<Config, 'baseUrl' | 'crawl'>;
  workflows: Pick<WorkflowStarter, 'recheckLaunch'>;
  badgeAgent: Dispatcher;
  clock: Clock;
}

/** Runs a `launches:*` command; returns null for other commands. */
export async function runLaunchCommand(
  deps: LaunchDeps,
  command: string | undefined,
  flags: { week?: string; listing?: string },
): Promise<number | null> {
  switch (command) {
    case 'launches:list':
      console.log(await launchesList(deps.db, flags.week));
      return 0;
    case 'launches:recheck':
      console.log(await launchesRecheck(deps, flags.listing));
      return 0;
    default:
      return null;
  }
}

interface LaunchLine extends Pick<ListingRow, 'id' | 'name' | 'status' | 'plan' | 'launch_week'> {
  site_key: string;
  badge: string | null;
}

async function launchesList(db: Db, week: string | undefined): Promise<string> {
  const query = db('listings as l')
    .join('sites as s', 's.id', 'l.site_id')
    .leftJoin('listing_badges as b', 'b.listing_id', 'l.id')
    .orderBy([{ column: 'l.launch_week', order: 'asc', nulls: 'first' }, 'l.id'])
    .select('l.id', 'l.name', 'l.status', 'l.plan', 'l.launch_week', 's.key as site_key', 'b.status as badge');
  if (week !== undefined) {
    const monday = isoWeekMonday(week);
    if (!monday) throw badRequest('usage', `--week must be an ISO week such as 2026-W52, not "${week}".`);
    query.where('l.launch_week', monday);
  } else {
    query.where((q) =>
      q
        .whereIn('l.status', ['awaiting_profile', 'awaiting_badge', 'scheduled'])
        .orWhere({ 'l.status': 'live', 'l.launch_week': isoWeekStart(new Date()) }),
    );
  }
  const rows: LaunchLine[] = await query;
  if (rows.length === 0) return 'No launches.';
  const positions = await queuePositions(
    db,
    rows.map((r) => r.id),
  );
  return [
    'listing\tsite\tweek\tplace\tstatus\tplan\tbadge\tname',
    ...rows.map((r) =>
      [
        r.id,
        r.site_key,
        r.launch_week ? isoWeekLabel(r.launch_week) : '-',
        positions.get(r.id) ?? '-',
        r.status,
        r.plan ?? '-',
        r.badge ?? 'unchecked',
        r.name,
      ].join('\t'),
    ),
  ].join('\n');
}

async function launchesRecheck(deps: LaunchDeps, listing: string | undefined): Promise<string> {
  if (!listing || !/^[1-9]\d{0,9}$/.test(listing)) throw badRequest('usage', `--listing must be a listing id.\n${LAUNCHES_USAGE}`);
  const row: ListingRow | undefined = await deps
    .db('listings')
    .where({ id: Number(listing) })
    .first();
  if (!row) throw notFound(`Listing ${listing}`);
  if (row.plan === null) throw badRequest('no_launch', `Listing ${row.id} has no launch plan yet (status ${row.status}).`);
  let badge = '';
  if (row.plan === 'free' && ['awaiting_badge', 'live'].includes(row.status)) {
    const check = await runBadgeCheck(
      { db: deps.db, baseUrl: deps.config.baseUrl, crawl: deps.config.crawl, badgeAgent: deps.badgeAgent, clock: deps.clock },
      row,
      'admin',
    );
    badge = ` badge ${check.status}: ${check.detail}`;
  }
  const moved = (await advanceFreeListing(deps.db, deps.config.baseUrl, row.id, deps.clock.now())) ?? row;
  await deps.workflows.recheckLaunch(row.id, await siteKeyOf(deps.db, row));
  return `listing ${row.id}: ${moved.status}${moved.launch_week ? ` in ${isoWeekLabel(moved.launch_week)}` : ''};${badge} signalled listing:${row.id}`;
}
