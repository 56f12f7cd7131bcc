import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's minified build, read once and evaluated in each page audited. */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical axe-core findings of the page as it is now, as "rule: targets" lines
 * (empty: none).
 *
 * axe-core runs in the page itself, with its default rules less those whose impact is moderate or
 * minor: a rule that declares an impact gives every finding that impact, so those rules can never
 * report what this returns. Only violations are gathered, and only these lines leave the page.
 * (@axe-core/playwright evaluated axe-core twice per audit and sent every passing node back; an
 * audit cost Chromium about 0.4 s of CPU.) Our pages have no frames, so one document is the page.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    interface AxeRule {
      id: string;
      impact?: string;
    }
    interface AxeViolation {
      id: string;
      impact?: string | null;
      nodes: { target: string[] }[];
    }
    const axe = (
      window as unknown as {
        axe: {
          _audit: { rules: AxeRule[] };
          run(context: Document, options: object): Promise<{ violations: AxeViolation[] }>;
        };
      }
    ).axe;
    const milder = axe._audit.rules.filter((r) => r.impact === 'moderate' || r.impact === 'minor');
    const { violations } = await axe.run(document, {
      rules: Object.fromEntries(milder.map((r) => [r.id, { enabled: false }])),
      resultTypes: ['violations'],
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** Asserts the page has no serious or critical axe finding; `label` names it (default: its path). */
export async function axeClean(t: { deepEqual: (a: unknown, b: unknown, m?: string) => void }, page: Page, label?: string): Promise<void> {
  t.deepEqual(await seriousViolations(page), [], `axe on ${label ?? new URL(page.url()).pathname}`);
}
