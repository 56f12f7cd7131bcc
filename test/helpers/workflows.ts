import fs from 'node:fs/promises';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestEnv } from './env.ts';
import { eventually } from './eventually.ts';

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

/** Waits until a workflow's history has an event with these attributes (e.g. timerStartedEventAttributes: it waits). */
export async function waitForHistoryEvent(
  env: Pick<TestEnv, 'temporalAddress' | 'namespace'>,
  workflowId: string,
  attributes: `${string}EventAttributes`,
  timeoutMs = 30_000,
): Promise<void> {
  const { client, close } = await temporalClient(env);
  try {
    await eventually(
      `${attributes} in the history of ${workflowId}`,
      async () =>
        (await client.workflow.getHandle(workflowId).fetchHistory()).events?.some((e) => (e as Record<string, unknown>)[attributes]),
      { timeoutMs, intervalMs: 100 },
    );
  } finally {
    await close();
  }
}

/**
 * Waits until a running workflow has no activity scheduled, started or waiting to retry: from
 * then on nothing runs until something wakes it (a signal, an update, a timer). What a test
 * asserts did not happen is asserted after this, instead of after a fixed sleep.
 */
export async function waitForNoPendingActivity(
  env: Pick<TestEnv, 'temporalAddress' | 'namespace'>,
  workflowId: string,
  timeoutMs = 30_000,
): Promise<void> {
  const { client, close } = await temporalClient(env);
  try {
    await eventually(
      `no pending activity in ${workflowId}`,
      async () => ((await client.workflow.getHandle(workflowId).describe()).raw.pendingActivities ?? []).length === 0,
      { timeoutMs, intervalMs: 100 },
    );
  } finally {
    await close();
  }
}

/** Whether a workflow's history (its latest run) holds an event with these attributes. */
export async function hasHistoryEvent(
  env: Pick<TestEnv, 'temporalAddress' | 'namespace'>,
  workflowId: string,
  attributes: `${string}EventAttributes`,
): Promise<boolean> {
  const { client, close } = await temporalClient(env);
  try {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    return Boolean(history.events?.some((e) => (e as Record<string, unknown>)[attributes]));
  } finally {
    await close();
  }
}
