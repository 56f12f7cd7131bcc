import type { Knex } from 'knex';

/**
 * The instant a launch week ends (the next Monday 00:00 UTC), stated once in SQL: the vote
 * counters, the unvote window, the audit, the scan and the voided votes all compare against it
 * (through `in_launch_week`). IMMUTABLE, so it
 * can stand in indexes and be folded by the planner. Its TypeScript twin is `launchWeekEnd` in
 * src/domain/ranking/weeks.ts.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    CREATE FUNCTION launch_week_end(week date) RETURNS timestamptz
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN (week + 7)::timestamp AT TIME ZONE 'UTC'`);
  // Whether an instant falls in a launch week: from its Monday 00:00 UTC (the previous week's end) to its end.
  await db.raw(`
    CREATE FUNCTION in_launch_week(at timestamptz, week date) RETURNS boolean
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN at >= launch_week_end(week - 7) AND at < launch_week_end(week)`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP FUNCTION in_launch_week(timestamptz, date)');
  await db.raw('DROP FUNCTION launch_week_end(date)');
}
