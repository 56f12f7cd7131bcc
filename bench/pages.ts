/**
 * `npm run bench:pages`: the public pages with 10,000 live listings of this week (in categories,
 * with votes, some featured): the front page, /launches, listing pages (a different one of 2,000
 * each request), a category page and /sitemap.xml, against a bare Koa handler in alternating
 * rounds at 50 connections, as a browser of a visitor without a session (asking for compression).
 * Targets: each page p99 < 50 ms and ≥ 20 % of the bare handler's requests per second. The
 * listing pages are also measured on an app that keeps no page, where every request renders.
 * A listing page with a discussion of 300 comments (and replies) is measured for visitors (kept)
 * and for signed-in people, each request its own session, with the server's CPU per request; so
 * are the front page, /launches and the listing pages (target for them: p99 < 50 ms, ≥ 10 %).
 */
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config/config.ts';
import { CATEGORY_SLUGS } from '../src/domain/crawl/categories.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { createSession } from '../src/auth/sessions.ts';
import type { Db } from '../src/db/knex.ts';
import { SESSION_COOKIE } from '../src/web/session.ts';
import { benchDatabase, compare, listen, printTable, runBench, WORDS } from './harness.ts';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);
/** Distinct listing pages the listing target cycles through. */
const LISTING_PAGES = 2_000;
/** A visitor's browser (listing views by bots are not counted; a person's are). */
/** Comments on the discussed listing (a tenth of them replies), and the signed-in people asking for it. */
const COMMENTS = 300;
const SESSIONS = 2_000;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

async function main() {
  const database = await benchDatabase(LISTINGS);
  try {
    const env = { LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: database.dataDir } as const;
    const services = createServices(loadConfig(env), { databaseUrl: database.databaseUrl, temporalAddress: '127.0.0.1:1' });
    const db = services.db;
    // As in `npm start`: change notices let the process keep signed-in people's state.
    services.listenForChanges();
    // Every listing in one or two categories, week votes as its votes (the seed leaves them 0).
    await db.raw(
      `UPDATE listings SET categories = ARRAY[(?::text[])[1 + id % ?], (?::text[])[1 + (id / 7) % ?]], week_votes = votes WHERE slug LIKE 'bench-%'`,
      [[...CATEGORY_SLUGS], CATEGORY_SLUGS.length, [...CATEGORY_SLUGS], CATEGORY_SLUGS.length],
    );
    await db.raw('ANALYZE listings');
    const slugs: string[] = (await db('listings').where('slug', 'like', 'bench-%').orderBy('id').limit(LISTING_PAGES).pluck('slug')).map(
      (s: string) => `/listings/${s}`,
    );
    process.env.BENCH_PATHS = JSON.stringify(slugs);
    const discussed = await seedDiscussion(db, slugs[1]!.slice('/listings/'.length), COMMENTS);
    process.env.BENCH_COOKIES = JSON.stringify(await signedInCookies(db, SESSIONS));

    const app = await listen(createApp(services, operations).callback());
    // The same app keeping no page: what a render of a listing page costs.
    const uncachedServices = createServices(loadConfig({ ...env, PAGE_CACHE_TTL_MS: '0' }), {
      databaseUrl: database.databaseUrl,
      temporalAddress: '127.0.0.1:1',
    });
    const uncached = await listen(createApp(uncachedServices, operations).callback());
    const bare = new Koa();
    bare.use((ctx) => {
      ctx.body = 'ok';
    });
    const bareServer = await listen(bare.callback());
    for (const path of ['/', '/launches', slugs[0]!, '/categories/productivity', '/sitemap.xml']) {
      const res = await fetch(app.url + path);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}\n${body.slice(0, 500)}`);
      console.log(`${path}: ${res.status}, ${body.length} bytes`);
    }
    // A process that has been serving has the listing pages visitors ask for kept: each is asked once first.
    for (let i = 0; i < slugs.length; i += 10)
      await Promise.all(slugs.slice(i, i + 10).map(async (path) => (await fetch(app.url + path)).arrayBuffer()));
    const rotate = fileURLToPath(new URL('./rotate-path.cjs', import.meta.url));
    const rotateSession = fileURLToPath(new URL('./rotate-session.cjs', import.meta.url));
    const rotatePathSession = fileURLToPath(new URL('./rotate-path-session.cjs', import.meta.url));
    const signedIn = [{ setupRequest: rotateSession as never }];
    await (await fetch(app.url + discussed)).arrayBuffer();
    // What every browser sends (and crawlers ask for gzip): visitors get pages compressed.
    const headers = { 'accept-encoding': 'gzip, deflate, br, zstd', 'user-agent': BROWSER };
    // BENCH_ONLY=text: only the targets whose name has it (and the bare handler), to look at a few closely.
    const only = (t: { name: string }, i: number) => i === 0 || !process.env.BENCH_ONLY || t.name.includes(process.env.BENCH_ONLY);
    const results = await compare(
      [
        { name: 'bare Koa (constant text)', options: { url: `${bareServer.url}/` } },
        { name: 'front page /', options: { url: `${app.url}/`, headers } },
        { name: 'front page /, signed in', options: { url: `${app.url}/`, headers, requests: signedIn } },
        { name: '/launches', options: { url: `${app.url}/launches`, headers } },
        { name: '/launches, signed in', options: { url: `${app.url}/launches`, headers, requests: signedIn } },
        { name: 'listing pages', options: { url: app.url, headers, requests: [{ setupRequest: rotate as never }] } },
        { name: 'listing pages, signed in', options: { url: app.url, headers, requests: [{ setupRequest: rotatePathSession as never }] } },
        { name: 'listing pages, none kept', options: { url: uncached.url, headers, requests: [{ setupRequest: rotate as never }] } },
        { name: `listing, ${COMMENTS} comments, visitors`, options: { url: app.url + discussed, headers } },
        {
          name: `listing, ${COMMENTS} comments, signed in`,
          options: { url: app.url + discussed, headers, requests: signedIn },
        },
        { name: 'category /categories/productivity', options: { url: `${app.url}/categories/productivity`, headers } },
        { name: '/sitemap.xml', options: { url: `${app.url}/sitemap.xml`, headers } },
      ].filter(only),
    );
    printTable(results);
    const [baseline, ...pages] = results;
    console.log('');
    for (const r of pages.filter((p) => !p.name.endsWith('none kept'))) {
      // Signed-in pages: every request its own person, so a page of theirs is never kept.
      const floor = r.name.endsWith('signed in') ? 0.1 : 0.2;
      const share = r.rps / baseline!.rps;
      const met = r.p99 < 50 && share >= floor;
      console.log(
        `${r.name.padEnd(36)} p99 ${r.p99} ms, ${(share * 100).toFixed(0)} % of bare — targets p99 < 50 ms, ≥ ${floor * 100} %: ${met ? 'met' : 'MISSED'}`,
      );
    }
    const visitors = results.find((r) => r.name.endsWith('comments, visitors'));
    const discussedSignedIn = results.find((r) => r.name.endsWith('comments, signed in'));
    if (visitors && discussedSignedIn)
      console.log(
        `signed in vs visitors, ${COMMENTS} comments: ${discussedSignedIn.rps.toFixed(0)} vs ${visitors.rps.toFixed(0)} req/s, ` +
          `server CPU ${(discussedSignedIn.cpuUs / 1000).toFixed(2)} vs ${(visitors.cpuUs / 1000).toFixed(2)} ms per request`,
      );
    for (const server of [app, uncached, bareServer]) await server.close();
    await services.close();
    await uncachedServices.close();
  } finally {
    await database.stop();
  }
}

/** A discussion of `count` comments on the listing `slug` by as many people; returns its page's path. */
async function seedDiscussion(db: Db, slug: string, count: number): Promise<string> {
  const listing = (await db('listings').where({ slug }).first('id'))!.id;
  const authors = await db('users')
    .insert(Array.from({ length: count }, (_, i) => ({ email: `commenter-${i}@bench.example`, email_verified_at: db.fn.now() })))
    .returning('id');
  const at = Date.now() - count * 60_000;
  const top = await db('comments')
    .insert(
      authors.slice(0, count - count / 10).map(({ id }, i) => ({
        listing_id: listing,
        user_id: id,
        body: `${WORDS.slice(i % 7, (i % 7) + 12).join(' ')}, question ${i}?\nSecond line https://example.com/${i}`,
        body_hash: `bench-${i}`,
        votes: i % 13,
        created_at: new Date(at + i * 60_000),
      })),
    )
    .returning('id');
  await db('comments').insert(
    authors.slice(count - count / 10).map(({ id }, i) => ({
      listing_id: listing,
      user_id: id,
      parent_id: top[i % top.length]!.id,
      body: `An answer ${i}: ${WORDS.slice(i % 5, (i % 5) + 10).join(' ')}.`,
      body_hash: `bench-reply-${i}`,
      created_at: new Date(at + (count + i) * 60_000),
    })),
  );
  await db('listings').where({ id: listing }).update({ comment_count: count });
  return `/listings/${slug}`;
}

/** `count` signed-in people (confirmed emails), each with a web session: their cookies. */
async function signedInCookies(db: Db, count: number): Promise<string[]> {
  const users = await db('users')
    .insert(Array.from({ length: count }, (_, i) => ({ email: `reader-${i}@bench.example`, email_verified_at: db.fn.now() })))
    .returning('id');
  const cookies: string[] = [];
  for (const { id } of users) cookies.push(`${SESSION_COOKIE}=${(await createSession(db, id)).id}`);
  return cookies;
}

runBench(main);
