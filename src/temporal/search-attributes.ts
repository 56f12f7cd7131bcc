import { Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import type { Logger } from 'pino';
import { SEARCH_ATTRIBUTES } from '../embedded/temporal.ts';

const INDEXED_TYPE = {
  Int: encodeSearchAttributeIndexedValueType('INT')!,
  Keyword: encodeSearchAttributeIndexedValueType('KEYWORD')!,
} as const;

/**
 * Registers the custom search attributes our workflows set (DraftId, DraftStatus, ...) on the
 * namespace when they are missing, so that a fresh self-hosted cluster accepts the workflow
 * starts. The embedded dev server has them already; where the operator API refuses (e.g. a
 * cloud namespace), the warning names the attributes to register by hand. Returns the ones added.
 */
export async function ensureSearchAttributes(address: string, namespace: string, log: Logger): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (customAttributes ?? {})));
    if (missing.length === 0) return [];
    const searchAttributes = Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_TYPE[type]]));
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    } catch (err) {
      const wanted = missing.map(([name, type]) => `${name} (${type})`).join(', ');
      log.warn({ err, namespace }, `could not register the search attributes ${wanted}; register them on the namespace, or workflow starts fail`);
      return [];
    }
    log.info({ namespace, added: missing.map(([name]) => name) }, 'search attributes registered');
    return missing.map(([name]) => name);
  } finally {
    await connection.close();
  }
}
