import { randomBytes } from 'node:crypto';
import test from 'ava';
import { msToTs } from '@temporalio/common/lib/time.js';
import { NativeConnection } from '@temporalio/worker';
import { SEARCH_ATTRIBUTES } from '../../src/embedded/temporal.ts';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes.ts';

/** A namespace registered at run time has none of our attributes, like one of an external cluster. */
test('ensureSearchAttributes registers the missing custom attributes once', async (t) => {
  const connection = await NativeConnection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  try {
    const namespace = `sa-${randomBytes(4).toString('hex')}`;
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const before = await connection.operatorService.listSearchAttributes({ namespace });
    t.false('ClaimId' in (before.customAttributes ?? {}));
    const added = await ensureSearchAttributes(connection, namespace);
    t.deepEqual(added.sort(), Object.keys(SEARCH_ATTRIBUTES).sort());
    const after = await connection.operatorService.listSearchAttributes({ namespace });
    t.is(after.customAttributes?.ClaimId, 3, 'Int');
    t.is(after.customAttributes?.OrderNumber, 2, 'Keyword');
    t.deepEqual(await ensureSearchAttributes(connection, namespace), []);
  } finally {
    await connection.close();
  }
});
