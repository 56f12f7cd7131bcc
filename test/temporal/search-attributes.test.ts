import { randomBytes } from 'node:crypto';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { pino } from 'pino';
import { SEARCH_ATTRIBUTES } from '../../src/workflows/contracts/search-attributes.ts';
import { createWorkflowStarter } from '../../src/temporal/client.ts';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes.ts';
import { eventually } from '../helpers/eventually.ts';

const address = process.env.TEST_TEMPORAL_ADDRESS!;
const log = pino({ level: 'silent' });

/** A new namespace without our search attributes, as a fresh self-hosted cluster has it. */
async function freshNamespace(): Promise<string> {
  const namespace = `sa-${randomBytes(4).toString('hex')}`;
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    // A new namespace takes a moment to be served.
    await eventually(
      `namespace ${namespace} to be served`,
      () => connection.operatorService.listSearchAttributes({ namespace }).then(() => true, () => false),
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    return namespace;
  } finally {
    await connection.close();
  }
}

test('the worker registers missing search attributes, so draft workflows can start on a fresh cluster', async (t) => {
  const namespace = await freshNamespace();
  const starter = createWorkflowStarter({ address, namespace });
  t.teardown(() => starter.close());
  const refused = await t.throwsAsync(starter.startDraft(1, { url: 'https://acme.example/', siteKey: 'main' }));
  t.like(refused, { code: 'workflow_unavailable' });

  t.deepEqual((await ensureSearchAttributes(address, namespace, log)).sort(), Object.keys(SEARCH_ATTRIBUTES).sort());
  t.deepEqual(await ensureSearchAttributes(address, namespace, log), [], 'a second run adds nothing');
  const connection = await Connection.connect({ address });
  t.teardown(() => connection.close());
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  t.is(customAttributes?.DraftStatus, 2 /* KEYWORD */);
  t.is(customAttributes?.DraftId, 3 /* INT */);

  // Registration may take a moment to reach the frontend's cache.
  let started = false;
  for (let i = 0; i < 50 && !started; i++) {
    started = await starter.startDraft(1, { url: 'https://acme.example/', siteKey: 'main' }).then(
      () => true,
      () => new Promise<boolean>((r) => setTimeout(() => r(false), 200)),
    );
  }
  t.true(started);
  await new Client({ connection, namespace }).workflow.getHandle('draft:1').terminate('test over');
});

test('a cluster that cannot be asked is a warning, not a failed worker start', async (t) => {
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
  t.deepEqual(await ensureSearchAttributes('127.0.0.1:1', 'default', logger), []);
  t.is(warnings.length, 1);
  t.regex(JSON.parse(warnings[0]!).msg, /DraftStatus \(Keyword\).*register them on the namespace/);
});
