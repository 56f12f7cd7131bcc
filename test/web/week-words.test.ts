import test from 'ava';
import { weekDates, weekText } from '../../src/web/week-words.ts';

test('a launch week reads as its number and its Monday to Sunday', (t) => {
  t.is(weekText('2026-12-21'), 'Week 52 · 21–27 Dec 2026');
  t.is(weekText('2026-11-30'), 'Week 49 · 30 Nov – 6 Dec 2026');
  t.is(weekText('2026-12-28'), 'Week 53 · 28 Dec 2026 – 3 Jan 2027');
  t.is(weekText('2027-01-04'), 'Week 1 · 4–10 Jan 2027');
  t.is(weekDates('2024-12-30'), '30 Dec 2024 – 5 Jan 2025');
});

test('the weeks a placement covers read as dates, the year said once per year', async (t) => {
  const { weeksText, durationText } = await import('../../src/web/week-words.ts');
  t.is(weeksText(['2026-12-21']), 'week of 21 Dec 2026');
  t.is(weeksText(['2026-12-21', '2026-12-28']), 'weeks of 21 Dec and 28 Dec 2026');
  t.is(weeksText(['2026-12-21', '2026-12-28', '2027-01-04']), 'weeks of 21 Dec, 28 Dec 2026 and 4 Jan 2027');
  t.is(
    weeksText(['2026-12-21', '2026-12-28', '2027-01-04', '2027-01-11', '2027-01-18']),
    '5 weeks, from the week of 21 Dec 2026 to the week of 18 Jan 2027',
  );
  t.is(durationText(29 * 3_600_000 + 38 * 60_000), '29 hours');
  t.is(durationText(3 * 86_400_000 + 5 * 3_600_000), '3 days and 5 hours');
  t.is(durationText(40 * 60_000), '40 minutes');
  t.is(durationText(3_600_000), '1 hour');
});
