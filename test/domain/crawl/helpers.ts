import type { CrawlOptions } from '../../../src/domain/crawl/index.ts';

export * from '../../helpers/site.ts';

export const OPTIONS: CrawlOptions = {
  allowPrivateNetworks: true,
  timeoutMs: 1500,
  maxBytes: 200_000,
  maxPages: 5,
  maxRedirects: 5,
  userAgent: 'TestBot/1.0',
};
