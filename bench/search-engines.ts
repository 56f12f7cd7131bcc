import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../src/db/knex.ts';
import { startOpenSearchNode } from '../src/embedded/opensearch.ts';
import { OpenSearchFeed } from '../src/search/opensearch-feed.ts';
import { openSearchClient } from '../src/search/opensearch-index.ts';

/** The engines a search benchmark compares (BENCH_ENGINES, comma-separated), in one run. */
export const ENGINES = (process.env.BENCH_ENGINES ?? 'memory,postgres,opensearch').split(',') as Array<
  'memory' | 'postgres' | 'opensearch'
>;

export const BENCH_ALIAS = 'listings';

export interface BenchOpenSearch {
  url: string;
  feed: OpenSearchFeed;
  /** The node's resident memory (the JVM, a process of its own). */
  rss(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * An OpenSearch node in the bench's data directory (kept with BENCH_DB_DIR, like the database)
 * and its index fed up to date: built from the listings the first time, caught up after.
 * OPENSEARCH_HEAP sizes the JVM (default 2g here).
 */
export async function benchOpenSearch(db: Db, dataDir: string, port: number): Promise<BenchOpenSearch> {
  const node = await startOpenSearchNode({ dir: path.join(dataDir, 'opensearch'), port, heap: process.env.OPENSEARCH_HEAP ?? '2g' });
  const feed = new OpenSearchFeed(db, openSearchClient({ url: node.url }), BENCH_ALIAS);
  // A kept database with a feed row but a fresh node (or the reverse): build it again.
  const { body: exists } = await openSearchClient({ url: node.url }).indices.existsAlias({ name: BENCH_ALIAS });
  const started = performance.now();
  if (!exists) await feed.reindex();
  const written = await feed.round();
  console.log(
    `opensearch: index ${exists ? `caught up (${written} listings written)` : 'built'} in ${Math.round(performance.now() - started)} ms`,
  );
  return {
    url: node.url,
    feed,
    rss: async () => `opensearch JVM RSS ${await rssOf(node.pid)} MB`,
    stop: () => node.stop(),
  };
}

/** A process's resident memory in MB, from /proc. */
export async function rssOf(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}
