import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../config/config.ts';
import type { Db } from '../db/knex.ts';
import { CrawlError, crawlSite, extractDraft } from '../domain/crawl/index.ts';
import { withCrawledMedia } from '../domain/media/crawled-media.ts';
import type { MediaStore } from '../domain/media/media-port.ts';
import { loadCrawledPages, markDraftFailed, getDraft, saveCrawledPages, saveDraftContent } from '../domain/drafts/drafts.ts';

export interface DraftActivityDeps {
  db: Db;
  config: Config;
  media: MediaStore;
}

/** Activities of the draft workflow; thin wrappers over domain code. */
export function createDraftActivities({ db, config, media }: DraftActivityDeps) {
  return {
    async crawlDraftSite(draftId: number): Promise<void> {
      const draft = await getDraft(db, draftId);
      if (draft.status !== 'crawling') return; // a retry after the pages were saved
      try {
        const result = await crawlSite(draft.url, config.crawl);
        await saveCrawledPages(db, draftId, result.pages);
      } catch (err) {
        if (err instanceof CrawlError) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      }
    },
    async composeDraft(draftId: number): Promise<void> {
      const { url, pages } = await loadCrawledPages(db, draftId);
      if (pages.length === 0) return; // already composed by an earlier attempt
      const crawled = { url: pages[0]?.url ?? url, pages };
      // The logo and preview image are fetched, checked and stored now; a bad one is left out.
      const { fields, evidence } = await withCrawledMedia(extractDraft(crawled), crawled, config.crawl, media);
      await saveDraftContent(db, draftId, fields, evidence);
    },
    async failDraft(draftId: number, code: string, reason: string): Promise<void> {
      await markDraftFailed(db, draftId, code, reason);
    },
  };
}

export type DraftActivities = ReturnType<typeof createDraftActivities>;
