import test from 'ava';
import type { Browser } from 'playwright-core';
import { isoWeekStart } from '../../src/workflows/contracts/weeks.ts';
import { scanWeek } from '../../src/domain/votes/scan.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';
import { buttonShownForVotes, ringVotes } from '../helpers/vote-rings.ts';

/** /ranking-policy and the vote audit on a listing page, for people: 390 px wide, axe-core clean. */

let env: TestEnv;
let browser: Browser;
let close: () => Promise<void>;
let slug: string;
test.before(async () => {
  ({ env, browser, close } = await startBrowserTestEnv(import.meta.url));
  const db = env.services.db;
  const id = await insertLiveListing(db, { name: 'Audit In The Browser', url: 'https://audit-browser.example.com/' });
  slug = (await db('listings').where({ id }).first('slug'))!.slug;
  await ringVotes(db, [id], 2, { ageDays: 20, createdMinutesApart: 60 * 24 * 2 });
  await ringVotes(db, [id], 9, { network: () => 'browser-ring' });
  await buttonShownForVotes(db, id);
  await scanWeek(db, (await db('sites').where({ key: 'main' }).first('id'))!.id, isoWeekStart(new Date()));
});
test.after.always(() => close?.());

for (const path of ['/ranking-policy', '/listings/{slug}', '/launches']) {
  test(`${path} fits 390 px and has no serious or critical axe violations`, async (t) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    try {
      const res = await page.goto(`${env.baseUrl}${path.replace('{slug}', slug)}`);
      t.is(res?.status(), 200);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      t.true(width <= 390, `scrollWidth ${width}`);
      t.deepEqual(await seriousViolations(page), []);
      if (path === '/listings/{slug}') {
        t.regex(await page.locator('#vote-audit').innerText(), /9 were discounted/);
        // The policy link is reachable with the keyboard.
        await page.locator('#vote-audit a[href="/ranking-policy"]').focus();
        await page.keyboard.press('Enter');
        await page.waitForURL(`${env.baseUrl}/ranking-policy`);
        t.is(await page.locator('h1').innerText(), 'How votes count');
      }
    } finally {
      await context.close();
    }
  });
}
