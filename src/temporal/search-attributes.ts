import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes.js';
import type { Logger } from 'pino';
import { SEARCH_ATTRIBUTES } from '../workflows/contracts/search-attributes.ts';
import { temporalClientSdk } from './client-sdk.ts';

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
  const wanted = Object.entries(SEARCH_ATTRIBUTES);
  try {
    const added = await addMissing(address, namespace, wanted);
    if (added.length) log.info({ namespace, added }, 'search attributes registered');
    return added;
  } catch (err) {
    // Not fatal here: the worker can still run; starts that set an unknown attribute would fail.
    const names = wanted.map(([name, type]) => `${name} (${type})`).join(', ');
    log.warn({ err, namespace }, `could not check or register the search attributes ${names}; register them on the namespace`);
    return [];
  }
}

async function addMissing(address: string, namespace: string, wanted: [string, keyof typeof INDEXED_TYPE][]): Promise<string[]> {
  const connection = await temporalClientSdk().Connection.connect({ address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = wanted.filter(([name]) => !(name in (customAttributes ?? {})));
    if (missing.length === 0) return [];
    const searchAttributes = Object.fromEntries(missing.map(([name, type]) => [name, INDEXED_TYPE[type]]));
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
    return missing.map(([name]) => name);
  } finally {
    await connection.close();
  }
}
