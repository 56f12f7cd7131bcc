import test from 'ava';
import { weekState } from '../../../src/domain/launches/launch-weeks.ts';
import {
  addWeeks,
  earliestFreeWeek,
  isMonday,
  isoWeekLabel,
  isoWeekStart,
  mondayOfWeekLabel,
  msUntilWeekStart,
  weekHasStarted,
  weekStartMs,
} from '../../../src/domain/launches/weeks.ts';
import { DEFAULT_LAUNCH_TIMING, nextRecheckDelay } from '../../../src/workflows/listing-launch.ts';

// Week boundaries are where launch directories get time zones wrong: Sunday 23:59:59.999 UTC is
// still the old week, Monday 00:00:00.000 UTC is the new one, whatever the machine's zone.

test('Sunday 23:59:59.999 UTC belongs to the week before, Monday 00:00 UTC starts the next', (t) => {
  t.is(isoWeekStart(new Date('2026-11-29T23:59:59.999Z')), '2026-11-23');
  t.is(isoWeekStart(new Date('2026-11-30T00:00:00.000Z')), '2026-11-30');
  t.is(isoWeekStart(new Date('2026-11-30T00:00:00.001Z')), '2026-11-30');
  // Late Sunday in New York is already Monday in UTC: UTC decides.
  t.is(isoWeekStart(new Date('2026-11-29T23:30:00-05:00')), '2026-11-30');
});

test('a launch is due from Monday 00:00 UTC, not a millisecond earlier', (t) => {
  const monday = '2026-11-30';
  t.false(weekHasStarted(monday, Date.parse('2026-11-29T23:59:59.999Z')));
  t.true(weekHasStarted(monday, Date.parse('2026-11-30T00:00:00.000Z')));
  t.is(msUntilWeekStart(monday, Date.parse('2026-11-29T23:59:00.000Z')), 60_000);
  t.is(msUntilWeekStart(monday, Date.parse('2026-11-30T00:00:00.000Z')), 0);
  t.is(msUntilWeekStart(monday, Date.parse('2026-12-02T12:00:00.000Z')), 0);
  t.is(weekStartMs(monday), Date.UTC(2026, 10, 30));
});

test('the free queue starts whole weeks after the current one, from any moment of it', (t) => {
  t.is(earliestFreeWeek(new Date('2026-11-29T23:59:59.999Z'), 4), '2026-12-21');
  t.is(earliestFreeWeek(new Date('2026-11-30T00:00:00.000Z'), 4), '2026-12-28');
  t.is(earliestFreeWeek(new Date('2026-11-30T00:00:00.000Z'), 0), '2026-11-30');
});

test('weeks across the year end keep ISO numbering (2026 has 53 weeks)', (t) => {
  t.is(addWeeks('2026-12-21', 1), '2026-12-28');
  t.is(isoWeekLabel('2026-12-28'), '2026-W53');
  t.is(isoWeekLabel(addWeeks('2026-12-28', 1)), '2027-W01');
  t.is(mondayOfWeekLabel('2026-W53'), '2026-12-28');
  t.is(mondayOfWeekLabel('2027-W01'), '2027-01-04');
  t.is(mondayOfWeekLabel('2026-W48'), '2026-11-23');
  for (const bad of ['2027-W53', '2026-W00', '2026-W54', '2026-48', 'W48', '2026-W4', '']) t.is(mondayOfWeekLabel(bad), null, bad);
});

test('isMonday accepts only real Mondays as YYYY-MM-DD', (t) => {
  t.true(isMonday('2026-11-30'));
  for (const bad of ['2026-11-29', '2026-12-01', '2026-02-30', '2026-13-07', '2026-11-30T00:00:00Z', '30-11-2026', ''])
    t.false(isMonday(bad), bad);
});

test('weekState: live this week, closed before, full only when no free and no paid slot is left', (t) => {
  const now = new Date('2026-11-25T10:00:00Z');
  const week = (week_start: string, free_taken: number, paid_taken: number) => ({
    week_start,
    free_slots: 2,
    free_taken,
    paid_slots: 1,
    paid_taken,
  });
  t.is(weekState(week('2026-11-23', 0, 0), now), 'live');
  t.is(weekState(week('2026-11-16', 0, 0), now), 'closed');
  t.is(weekState(week('2026-11-30', 2, 0), now), 'open');
  t.is(weekState(week('2026-11-30', 1, 1), now), 'open');
  t.is(weekState(week('2026-11-30', 2, 1), now), 'full');
});

test('re-check schedule: every 10 min for the first hour, then hourly for 7 days, then none', (t) => {
  const phases = DEFAULT_LAUNCH_TIMING.recheck;
  const min = 60_000;
  t.is(nextRecheckDelay(phases, 0), 10 * min);
  t.is(nextRecheckDelay(phases, 55 * min), 5 * min);
  t.is(nextRecheckDelay(phases, 60 * min), 60 * min);
  t.is(nextRecheckDelay(phases, (60 + 7 * 24 * 60 - 1) * min), min);
  t.is(nextRecheckDelay(phases, (60 + 7 * 24 * 60) * min), null);
  let elapsed = 0;
  let checks = 0;
  for (let d = nextRecheckDelay(phases, 0); d !== null; d = nextRecheckDelay(phases, elapsed))
    [elapsed, checks] = [elapsed + d, checks + 1];
  t.is(checks, 6 + 7 * 24);
});
