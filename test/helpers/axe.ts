import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/**
 * The serious and critical axe-core findings of the page as it is now, as "rule: targets" lines
 * (empty: none). Our pages have no frames, so axe runs in the page itself (AxeBuilder's legacy
 * mode: same rules, same results): the default mode would inject axe-core a second time into a
 * blank page it opens to merge the results of the frames, on every call (about half of what an
 * audit costs Chromium).
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).setLegacyMode().analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
