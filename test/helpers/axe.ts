import AxeBuilder from '@axe-core/playwright';
import type { AxeResults } from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * axe-core over the page as it is now. Our pages have no frames, so axe runs in the page itself
 * (AxeBuilder's legacy mode: same rules, same results): the default mode would inject axe-core a
 * second time into a blank page it opens to merge the results of the frames, on every call
 * (about half of what an audit costs Chromium).
 */
export function axe(page: Page): Promise<AxeResults> {
  return new AxeBuilder({ page }).setLegacyMode().analyze();
}
