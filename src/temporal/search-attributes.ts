import type { NativeConnection } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../embedded/temporal.ts';

/** temporal.api.enums.v1.IndexedValueType of each type name used in SEARCH_ATTRIBUTES. */
const INDEXED_VALUE_TYPES = { Keyword: 2, Int: 3 } as const;

/**
 * Registers the custom search attributes (ClaimId, ListingId, ...) on a namespace of an external
 * cluster, where nobody passed `--search-attribute` as the embedded dev server does: a workflow
 * started with an unknown attribute is refused. Attributes already there are left alone.
 * Returns the names it added.
 */
export async function ensureSearchAttributes(connection: Pick<NativeConnection, 'operatorService'>, namespace: string): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (customAttributes ?? {})));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_VALUE_TYPES[type]])),
  });
  return missing.map(([name]) => name);
}
