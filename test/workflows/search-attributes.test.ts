import test from 'ava';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { pino } from 'pino';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/contracts/search-attributes.ts';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes.ts';
import { namespaceFor } from '../helpers/namespace.ts';
import { eventually } from '../helpers/eventually.ts';

// A fresh cluster namespace lacks our search attributes: the worker registers them once, and a
// second start finds them there. (The harness's dev server already has them in its namespaces.)
test('ensureSearchAttributes adds what a namespace lacks and is a no-op afterwards', async (t) => {
  const address = process.env.TEST_TEMPORAL_ADDRESS!;
  const connection = await Connection.connect({ address });
  t.teardown(() => connection.close());
  const namespace = `${namespaceFor(import.meta.url)}-fresh`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  await eventually('the search attributes', async () => {
    try {
      await connection.operatorService.listSearchAttributes({ namespace });
      return true;
    } catch {
      return false;
    }
  });
  await ensureSearchAttributes(address, namespace, log);
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  for (const name of Object.keys(SEARCH_ATTRIBUTES)) t.truthy(customAttributes?.[name], name);
  t.regex(lines.join(''), /search attributes registered/);
  lines.length = 0;
  await ensureSearchAttributes(address, namespace, log);
  t.deepEqual(lines, []);
});
