import { badRequest } from '../errors/errors.ts';
import { openSearchFeed } from '../search/engines.ts';
import type { Services } from '../services.ts';

export const SEARCH_USAGE = `  npm run admin -- search:reindex   (SEARCH_ENGINE=opensearch: builds a new index from PostgreSQL; searches move to it once the feed has caught it up)`;

/** `search:reindex`: a new OpenSearch index from one snapshot of the live listings, handed to the feed. */
export async function searchReindex(services: Pick<Services, 'db' | 'config' | 'log'>): Promise<string> {
  const settings = services.config.search;
  if (settings.engine !== 'opensearch') {
    throw badRequest(
      'usage',
      `search:reindex builds the OpenSearch index; SEARCH_ENGINE is ${settings.engine}, which reads PostgreSQL itself.`,
    );
  }
  const started = Date.now();
  const { index, documents } = await openSearchFeed(services.db, settings).reindex(services.log);
  return `built ${index} with ${documents} listings in ${((Date.now() - started) / 1000).toFixed(1)} s; the feed moves the alias "${settings.openSearch.alias}" to it after its next round`;
}
