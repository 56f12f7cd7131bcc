import test from 'ava';
import { applyBp, splitByLargestRemainder } from '../../../src/domain/orders/money.ts';
import { vatRateBp } from '../../../src/domain/orders/vat.ts';

test('applyBp rounds half-up to the cent', (t) => {
  t.is(applyBp(1000, 2300), 230);
  t.is(applyBp(50, 2300), 12); // 11.5 → 12
  t.is(applyBp(49, 2300), 11); // 11.27 → 11
  t.is(applyBp(1, 5000), 1); // 0.5 → 1
  t.is(applyBp(0, 2300), 0);
});

test('splitByLargestRemainder gives whole cents that add up exactly', (t) => {
  t.deepEqual(splitByLargestRemainder(100, [1, 1, 1]), [34, 33, 33]);
  t.deepEqual(splitByLargestRemainder(10, [1, 2]), [3, 7]);
  t.deepEqual(splitByLargestRemainder(0, [5, 5]), [0, 0]);
  t.deepEqual(splitByLargestRemainder(7, [0, 0]), [0, 0]);
  for (const total of [1, 99, 1234, 98765]) {
    const parts = splitByLargestRemainder(total, [4900, 9900, 2900, 1]);
    t.is(
      parts.reduce((a, b) => a + b, 0),
      total,
    );
  }
});

test('VAT rates come dated from the data set', (t) => {
  t.is(vatRateBp('IE', new Date('2026-01-01T00:00:00Z')), 2300);
  // Ireland's temporary 21 % (Sept 2020 – Feb 2021) is in the data set's history.
  t.is(vatRateBp('IE', new Date('2020-12-01T00:00:00Z')), 2100);
  t.is(vatRateBp('DE', new Date('2026-01-01T00:00:00Z')), 1900);
  t.is(vatRateBp('DE', new Date('2020-10-01T00:00:00Z')), 1600);
});
