/** Integer-cent arithmetic shared by the pricing (no floating point touches an amount). */

/** `cents × bp / 10000`, rounded half-up to the cent. */
export function applyBp(cents: number, bp: number): number {
  return Math.floor((cents * bp + 5_000) / 10_000);
}

/**
 * Splits `total` across `weights` in proportion, by largest remainder: the parts are whole cents
 * and add up to `total` exactly; leftover cents go to the largest fractions (earlier lines on ties).
 */
export function splitByLargestRemainder(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map(() => 0);
  const parts = weights.map((w) => Math.floor((total * w) / sum));
  const remainders = weights.map((w, i) => ({ i, r: (total * w) % sum }));
  let left = total - parts.reduce((a, b) => a + b, 0);
  for (const { i } of remainders.sort((a, b) => b.r - a.r || a.i - b.i)) {
    if (left === 0) break;
    parts[i]! += 1;
    left -= 1;
  }
  return parts;
}
