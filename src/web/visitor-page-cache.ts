import { TtlCache } from '../cache/ttl-cache.ts';
import type { PageMeta } from './head.ts';
import type { SafeHtml } from './html.ts';

/** What a page renders into the layout, the same for every visitor without a session. */
export interface PageContent {
  title: string;
  main: SafeHtml;
  status?: number;
  script?: string;
  /** Description, canonical path, link previews, JSON-LD and feeds of the page (src/web/head.ts). */
  meta?: PageMeta;
}

/** The pages kept for visitors by one process (src/web/page-cache.ts), built by createCaches. */
export function createVisitorPageCache(ttlMs: number) {
  return new TtlCache<PageContent | null>({ ttlMs, maxEntries: 1_000 });
}
