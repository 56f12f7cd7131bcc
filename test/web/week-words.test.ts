import test from 'ava';
import { weekDates, weekText } from '../../src/web/week-words.ts';

test('a launch week reads as its number and its Monday to Sunday', (t) => {
  t.is(weekText('2026-12-21'), 'Week 52 · 21–27 Dec 2026');
  t.is(weekText('2026-11-30'), 'Week 49 · 30 Nov – 6 Dec 2026');
  t.is(weekText('2026-12-28'), 'Week 53 · 28 Dec 2026 – 3 Jan 2027');
  t.is(weekText('2027-01-04'), 'Week 1 · 4–10 Jan 2027');
  t.is(weekDates('2024-12-30'), '30 Dec 2024 – 5 Jan 2025');
});
