import type { Db } from '../../src/db/knex.ts';
import type { SearchEngine } from '../../src/domain/listings/search-port.ts';
import { OpenSearchFeed } from '../../src/search/opensearch-feed.ts';
import { openSearchClient } from '../../src/search/opensearch-index.ts';
import { OpenSearchSearch } from '../../src/search/opensearch-engine.ts';
import { namespaceFor } from './namespace.ts';

/** The run's OpenSearch node (test/harness.ts starts one). */
export function testOpenSearchUrl(): string {
  const url = process.env.TEST_OPENSEARCH_URL;
  if (!url) throw new Error('TEST_OPENSEARCH_URL is unset: run the tests with npm test (test/harness.ts starts OpenSearch)');
  return url;
}

export interface TestOpenSearch {
  client: ReturnType<typeof openSearchClient>;
  /** This file's alias: every file has indices of its own on the run's node. */
  alias: string;
  feed: OpenSearchFeed;
  engine: OpenSearchSearch;
  /** The engine behind a feed round before each search: every write before the search is in its answer. */
  fed: SearchEngine;
}

/** The OpenSearch engine and its feed on the run's node, under an alias of the test file's own. */
export function testOpenSearch(db: Db, testFile: string, suffix = ''): TestOpenSearch {
  const client = openSearchClient({ url: testOpenSearchUrl() });
  const alias = `${namespaceFor(testFile)}${suffix}`;
  const feed = new OpenSearchFeed(db, client, alias);
  const engine = new OpenSearchSearch(db, client, { alias, cacheTtlMs: 0 });
  const fed: SearchEngine = {
    search: async (query) => {
      await feed.round();
      return engine.search(query);
    },
    ready: () => feed.round().then(() => engine.ready()),
  };
  return { client, alias, feed, engine, fed };
}
