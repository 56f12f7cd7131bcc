/**
 * `node bench/workflow-starts.ts`: latency from a write's commit to its workflow's start, over
 * BENCH_DRAFTS create_draft calls (one at a time) on an embedded PostgreSQL and a Temporal dev
 * server: the draft's created_at (its transaction's time) to the start time Temporal's describe()
 * reports. Prints p50, p99 and the HTTP answer's own time. No worker runs: only the start counts.
 */
import { createApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { createUser } from '../src/auth/users.ts';
import { loadConfig } from '../src/config/config.ts';
import { startTemporalDevServer } from '../src/embedded/temporal.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { temporalClientSdk } from '../src/temporal/client-sdk.ts';
import { draftWorkflowId } from '../src/workflows/contracts/workflow-ids.ts';
import { benchDatabase, freePort, listen } from './harness.ts';

const DRAFTS = Number(process.env.BENCH_DRAFTS ?? 200);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main() {
  const database = await benchDatabase(10);
  const temporal = await startTemporalDevServer({ port: await freePort(), uiPort: null, dbFile: null, namespaces: ['bench'] });
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    PORT: '0',
    TEMPORAL_NAMESPACE: 'bench',
    DATA_DIR: database.dataDir,
    DRAFTS_MAX_IN_FLIGHT: '100000',
    DRAFTS_MAX_PER_HOUR: '100000',
  });
  const services = createServices(config, { databaseUrl: database.databaseUrl, temporalAddress: temporal.address });
  // As an api process does (absent before the outbox: the start was made in the request).
  (services as { workflowStarts?: { run(): void } }).workflowStarts?.run();
  const app = await listen(createApp(services, operations).callback());
  try {
    const user = await createUser(services.db, 'bench-starts@example.com');
    const { key } = await createApiKey(services.db, user.id, 'bench', ['listings:write', 'account:read']);
    const answers: number[] = [];
    const ids: number[] = [];
    for (let i = 0; i < DRAFTS + 10; i++) {
      const began = performance.now();
      const res = await fetch(`${app.url}/api/v1/drafts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `https://bench-${i}.example/` }),
      });
      if (res.status !== 201) throw new Error(`create_draft answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { id: number };
      // The first ten warm the connections and the SDK up.
      if (i >= 10) {
        answers.push(performance.now() - began);
        ids.push(body.id);
      }
    }
    const latencies: number[] = [];
    const { Client, Connection } = temporalClientSdk();
    const connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection, namespace: 'bench' });
    for (const id of ids) {
      const draft = await services.db('drafts').where({ id }).first('created_at');
      const described = await client.workflow.getHandle(draftWorkflowId(id)).describe();
      latencies.push(described.startTime.getTime() - draft!.created_at.getTime());
    }
    await connection.close();
    latencies.sort((a, b) => a - b);
    answers.sort((a, b) => a - b);
    console.log(
      `create_draft × ${ids.length}: commit → workflow started p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
    );
    console.log(`HTTP answer p50 ${percentile(answers, 50).toFixed(1)} ms, p99 ${percentile(answers, 99).toFixed(1)} ms`);
  } finally {
    await app.close();
    await services.close();
    await temporal.stop();
    await database.stop();
  }
}

await main();
process.exit(0);
