/**
 * `npm run bench:lighthouse`: Lighthouse (mobile, its default preset) on four public pages — the
 * front page, /launches, a listing page, a category page and last week's archive page — served
 * by the app on an embedded PostgreSQL with a few hundred live listings (in categories, with
 * votes, each with a logo and a preview image) and a closed, frozen week. Chromium is the project's headless shell (CHROMIUM_PATH overrides it).
 * Prints the four category scores per page and the title of every audit that failed.
 * BENCH_LIGHTHOUSE_RUNS=n runs each page n times and keeps the median performance run (the
 * performance score varies from run to run on a busy machine; the other three do not).
 * BENCH_LIGHTHOUSE_OUT=dir writes each page's full report there as JSON (open it in the viewer).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Result } from 'lighthouse';
import sharp from 'sharp';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { CATEGORY_SLUGS } from '../src/domain/crawl/categories.ts';
import { storeListingMedia } from '../src/domain/media/listing-media.ts';
import type { MediaStore } from '../src/domain/media/media-port.ts';
import { freezeWeek } from '../src/domain/ranking/weekly-close.ts';
import type { Db } from '../src/db/knex.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { addWeeks, isoWeekLabel, isoWeekStart } from '../src/workflows/contracts/weeks.ts';
import { benchDatabase, listen, runBench, WORDS } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 300);
const RUNS = Math.max(1, Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 1));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
const OUT = process.env.BENCH_LIGHTHOUSE_OUT;
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

/** The first 40 bench listings moved to last week (with their votes) and frozen: its archive page's path. */
async function closedWeek(db: Db): Promise<string> {
  const monday = addWeeks(isoWeekStart(new Date()), -1);
  await db.raw(`UPDATE listings SET launch_week = ? WHERE id IN (SELECT id FROM listings WHERE slug LIKE 'bench-%' ORDER BY id LIMIT 40)`, [
    monday,
  ]);
  const site = await db('sites').where({ key: 'main' }).first('id');
  await freezeWeek(db, site!.id, monday, new Date());
  const [year, week] = isoWeekLabel(monday).split('-W');
  return `/launches/${year}/${Number(week)}`;
}

/** An SVG drawing as a PNG: stands in for an upload (a logo, a screenshot) the way owners send them. */
const drawing = (width: number, height: number, body: string) =>
  sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`))
    .png()
    .toBuffer();

/** Every listing gets a logo and a preview image, stored through the upload path (so resized as uploads are). */
async function seedMedia(db: Db, media: MediaStore): Promise<void> {
  const logo = await storeListingMedia(
    media,
    'logo',
    await drawing(512, 512, `<rect width="512" height="512" rx="96" fill="#0b5fff"/><circle cx="256" cy="256" r="150" fill="#ffd23f"/>`),
  );
  const rows = Array.from(
    { length: 12 },
    (_, i) => `<rect x="80" y="${150 + i * 36}" width="${400 + ((i * 97) % 600)}" height="18" rx="9" fill="#c9d2e3"/>`,
  );
  const image = await storeListingMedia(
    media,
    'image',
    await drawing(
      1600,
      840,
      `<defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="#eef3ff"/><stop offset="1" stop-color="#d9e4ff"/></linearGradient></defs>
<rect width="1600" height="840" fill="url(#g)"/><rect x="40" y="40" width="1520" height="70" rx="12" fill="#1d2b4f"/>
<text x="80" y="88" font-family="sans-serif" font-size="36" fill="#fff">Dashboard</text>${rows.join('')}
<circle cx="1250" cy="480" r="200" fill="#0b5fff" opacity=".8"/><circle cx="1250" cy="480" r="110" fill="#fff"/>`,
    ),
  );
  await db('listings').where('slug', 'like', 'bench-%').update({ logo_url: logo, image_url: image });
}

/** A short discussion on the listing `slug` (a reply among them), so its page shows one. */
async function seedComments(db: Db, slug: string): Promise<void> {
  const listing = (await db('listings').where({ slug }).first('id'))!.id;
  const authors = await db('users')
    .insert(Array.from({ length: 6 }, (_, i) => ({ email: `lighthouse-${i}@bench.example`, email_verified_at: db.fn.now() })))
    .returning('id');
  const [first] = await db('comments')
    .insert(
      authors.slice(0, 5).map(({ id }, i) => ({
        listing_id: listing,
        user_id: id,
        body: `Question ${i}: does it work for ${WORDS[i]} and ${WORDS[i + 5]}? See https://example.com/${i}`,
        body_hash: `lighthouse-${i}`,
        created_at: new Date(Date.now() - (10 - i) * 60_000),
      })),
    )
    .returning('id');
  await db('comments').insert({
    listing_id: listing,
    user_id: authors[5]!.id,
    parent_id: first!.id,
    body: 'Yes, it does.',
    body_hash: 'lighthouse-reply',
    created_at: new Date(),
  });
  await db('listings').where({ id: listing }).update({ comment_count: 6 });
}

interface PageScores {
  path: string;
  scores: Record<(typeof CATEGORIES)[number], number>;
  failing: string[];
  /** Lighthouse's measure of the machine's speed during the run (a quiet desktop is 1,000–2,000). */
  benchmarkIndex: number;
}

async function audit(port: number, url: string): Promise<Result> {
  const runs: Result[] = [];
  for (let i = 0; i < RUNS; i++) {
    const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES] });
    if (!result) throw new Error(`${url}: Lighthouse returned nothing`);
    if (result.lhr.runtimeError) throw new Error(`${url}: ${result.lhr.runtimeError.code} ${result.lhr.runtimeError.message}`);
    runs.push(result.lhr);
  }
  runs.sort((a, b) => (a.categories.performance!.score ?? 0) - (b.categories.performance!.score ?? 0));
  return runs[Math.floor(runs.length / 2)]!;
}

function scoresOf(path: string, lhr: Result): PageScores {
  const scores = Object.fromEntries(CATEGORIES.map((c) => [c, Math.round((lhr.categories[c]!.score ?? 0) * 100)])) as PageScores['scores'];
  const failing = new Set<string>();
  for (const c of CATEGORIES) {
    for (const ref of lhr.categories[c]!.auditRefs) {
      const a = lhr.audits[ref.id]!;
      // Audits with no weight (diagnostics) do not move a score; neither do informative ones.
      if (ref.weight > 0 && a.score !== null && a.score < 1) failing.add(`${c}: ${a.title} (${a.displayValue ?? a.score})`);
    }
  }
  return { path, scores, failing: [...failing], benchmarkIndex: lhr.environment.benchmarkIndex };
}

function printScores(pages: PageScores[]): void {
  console.log(`\nLighthouse (mobile preset), ${RUNS} run(s) per page, ${CHROMIUM}`);
  console.log(`page                            ${CATEGORIES.map((c) => c.padStart(15)).join('')}  benchmarkIndex`);
  for (const p of pages)
    console.log(
      `${p.path.padEnd(32)}${CATEGORIES.map((c) => String(p.scores[c]).padStart(15)).join('')}${String(Math.round(p.benchmarkIndex)).padStart(16)}`,
    );
  for (const p of pages.filter((p) => p.failing.length)) {
    console.log(`\n${p.path} fails:`);
    for (const f of p.failing) console.log(`  ${f}`);
  }
}

async function main() {
  const database = await benchDatabase(LISTINGS);
  try {
    const env = { LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: database.dataDir } as const;
    const services = createServices(loadConfig(env), { databaseUrl: database.databaseUrl, temporalAddress: '127.0.0.1:1' });
    const db = services.db;
    await db.raw(`UPDATE listings SET categories = ARRAY[(?::text[])[1 + id % ?]], week_votes = votes WHERE slug LIKE 'bench-%'`, [
      [...CATEGORY_SLUGS],
      CATEGORY_SLUGS.length,
    ]);
    await seedMedia(db, services.media);
    const archive = await closedWeek(db);
    const listing = await db('listings').where('slug', 'like', 'bench-%').orderBy('votes', 'desc').first('slug', 'categories');
    await seedComments(db, listing!.slug);
    const app = await listen(createApp(services, operations).callback());
    const paths = ['/', '/launches', `/listings/${listing!.slug}`, `/categories/${listing!.categories[0]}`, archive];
    for (const page of paths) {
      const res = await fetch(app.url + page);
      if (res.status !== 200) throw new Error(`${page}: ${res.status}\n${(await res.text()).slice(0, 500)}`);
      await res.arrayBuffer();
    }
    const chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM,
      chromeFlags: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    try {
      const pages: PageScores[] = [];
      for (const page of paths) {
        const lhr = await audit(chrome.port, app.url + page);
        if (OUT) {
          await fs.mkdir(OUT, { recursive: true });
          await fs.writeFile(path.join(OUT, `${page.replace(/\W+/g, '-').replace(/^-|-$/g, '') || 'home'}.json`), JSON.stringify(lhr));
        }
        pages.push(scoresOf(page, lhr));
      }
      printScores(pages);
    } finally {
      chrome.kill();
    }
    await app.close();
    await services.close();
  } finally {
    await database.stop();
  }
}

runBench(main);
