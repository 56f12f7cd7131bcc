import test from 'ava';
import { weekState } from '../../../src/domain/launches/launch-weeks.ts';
import {
  addWeeks,
  earliestFreeWeek,
  isMonday,
  ISO_WEEK_PATTERN,
  isoWeekLabel,
  isoWeekMonday,
  isoWeekStart,
  msUntilWeekStart,
  weekHasStarted,
  weekStartMs,
} from '../../../src/workflows/contracts/weeks.ts';
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
  t.is(isoWeekMonday('2026-W53'), '2026-12-28');
  t.is(isoWeekMonday('2027-W01'), '2027-01-04');
  t.is(isoWeekMonday('2026-W48'), '2026-11-23');
  for (const bad of ['2027-W53', '2026-W00', '2026-W54', '2026-48', 'W48', '2026-W4', '']) t.is(isoWeekMonday(bad), null, bad);
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

// One calendar for every four-digit year: Date.UTC maps years 0–99 to 1900–1999, so nothing in
// it may build a date from a year number that way.
test('labels and Mondays agree for years before 2000, including years 0–99', (t) => {
  // 1999-01-04 (Monday) starts 1999-W01; 1998 is a long year (W53 from 1998-12-28).
  t.is(isoWeekMonday('1999-W01'), '1999-01-04');
  t.is(isoWeekLabel('1999-01-04'), '1999-W01');
  t.is(isoWeekMonday('1998-W53'), '1998-12-28');
  t.is(isoWeekLabel('1998-12-28'), '1998-W53');
  t.is(isoWeekMonday('1999-W53'), null);
  // 1900-01-01 was a Monday: 1900-W01 starts that day.
  t.is(isoWeekMonday('1900-W01'), '1900-01-01');
  // Year 99 is not 1999; 0099-W01 starts on Monday 0098-12-29 (proleptic Gregorian).
  t.is(isoWeekMonday('0099-W01'), '0098-12-29');
  t.is(isoWeekLabel('0098-12-29'), '0099-W01');
  t.is(isoWeekStart(new Date('0099-01-07T12:00:00Z')), '0099-01-05');
  t.is(isoWeekLabel('0099-01-05'), '0099-W02');
  t.is(isoWeekLabel(addWeeks('0098-12-29', -1)), '0098-W52');
  t.is(addWeeks('0099-12-28', 1), '0100-01-04');
});

test('week 53 exists exactly in long years; W00 and W54 never', (t) => {
  const long = [1970, 1976, 1981, 1987, 1992, 1998, 2004, 2009, 2015, 2020, 2026, 2032];
  for (let year = 1970; year <= 2035; year++) {
    const monday = isoWeekMonday(`${year}-W53`);
    t.is(monday !== null, long.includes(year), String(year));
    if (monday) t.is(isoWeekLabel(addWeeks(monday, 1)), `${year + 1}-W01`);
  }
  for (const bad of ['2026-W00', '2026-W54', '1999-W00', '0099-W54']) t.is(isoWeekMonday(bad), null, bad);
});

test('year boundaries: week 1 may start in December, the last week may end in January', (t) => {
  // 2024-12-30 (Monday) is 2025-W01; 2021-01-03 (Sunday) is still 2020-W53; 2010-01-03 is 2009-W53.
  t.is(isoWeekStart(new Date('2024-12-31T12:00:00Z')), '2024-12-30');
  t.is(isoWeekLabel('2024-12-30'), '2025-W01');
  t.is(isoWeekMonday('2025-W01'), '2024-12-30');
  t.is(isoWeekLabel(isoWeekStart(new Date('2021-01-03T23:59:59.999Z'))), '2020-W53');
  t.is(isoWeekLabel(isoWeekStart(new Date('2010-01-03T00:00:00Z'))), '2009-W53');
  t.is(isoWeekMonday('2000-W01'), '2000-01-03');
  t.is(isoWeekLabel('1999-12-27'), '1999-W52');
  t.is(addWeeks('1999-12-27', 1), '2000-01-03');
  t.is(addWeeks('2000-01-03', -1), '1999-12-27');
});

test('the API pattern takes weeks from 2000; the calendar itself reads any four-digit year', (t) => {
  t.true(ISO_WEEK_PATTERN.test('2026-W48'));
  t.false(ISO_WEEK_PATTERN.test('1999-W10'));
  t.is(isoWeekMonday('1999-W10'), '1999-03-08');
  for (const bad of ['2026-48', 'W48', '2026-W4', '26-W48', '+02026-W48', '2026-w48', '']) t.is(isoWeekMonday(bad), null, bad);
});
