import { Client, Connection } from '@temporalio/client';
import type { TestEnv } from './env.ts';

/** A Temporal client on the env's namespace (close it when done). */
export async function temporalClient(env: Pick<TestEnv, 'temporalAddress' | 'namespace'>): Promise<{ client: Client; close(): Promise<void> }> {
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
