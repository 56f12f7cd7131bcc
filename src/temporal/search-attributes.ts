import { Connection } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import type { Logger } from 'pino';
import { SEARCH_ATTRIBUTES } from '../embedded/temporal.ts';

const TYPES = { Int: 'INT', Keyword: 'KEYWORD' } as const;

/**
 * Registers the custom search attributes (DESIGN.md §6) that the namespace lacks, so that starts
 * carrying them do not fail on a fresh cluster. Where the worker may not change the namespace
 * (Temporal Cloud: use tcld or the UI), it logs what to run and carries on.
 */
export async function ensureSearchAttributes(address: string, namespace: string, log: Logger): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !customAttributes?.[name]);
    if (missing.length === 0) return;
    const searchAttributes = Object.fromEntries(missing.map(([name, type]) => [name, encodeSearchAttributeIndexedValueType(TYPES[type])!]));
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    log.info({ namespace, added: missing.map(([name]) => name) }, 'temporal search attributes registered');
  } catch (err) {
    log.warn({ err, namespace }, 'could not register the search attributes; see README (temporal operator search-attribute create)');
  } finally {
    await connection.close();
  }
}
