import fs from 'node:fs/promises';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestEnv } from './env.ts';

/** A Temporal client on the env's namespace (close it when done). */
export async function temporalClient(
  env: Pick<TestEnv, 'temporalAddress' | 'namespace'>,
): Promise<{ client: Client; close(): Promise<void> }> {
  const connection = await Connection.connect({ address: env.temporalAddress });
  return { client: new Client({ connection, namespace: env.namespace }), close: () => connection.close() };
}

/** Waits for a workflow to finish and returns its result. */
export async function workflowResult<T = unknown>(env: Pick<TestEnv, 'temporalAddress' | 'namespace'>, workflowId: string): Promise<T> {
  const { client, close } = await temporalClient(env);
  try {
    return (await client.workflow.getHandle(workflowId).result()) as T;
  } finally {
    await close();
  }
}

/** Writes the history of a finished workflow as a replay fixture when UPDATE_FIXTURES=1. */
export async function recordHistory(
  env: Pick<TestEnv, 'temporalAddress' | 'namespace'>,
  workflowId: string,
  fixture: string,
): Promise<void> {
  if (process.env.UPDATE_FIXTURES !== '1') return;
  const { client, close } = await temporalClient(env);
  try {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const file = path.resolve(import.meta.dirname, '../fixtures', fixture);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, historyToJSON(history));
  } finally {
    await close();
  }
}
