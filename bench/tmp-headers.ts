import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { startEmbeddedPostgres } from '../src/embedded/postgres.ts';
import { listen, freePort } from './harness.ts';
import { exec } from 'node:child_process';
import { promisify } from 'node:util';
const pgs = await startEmbeddedPostgres({ dir: '/tmp/browse-bench-db/pg', port: await freePort() });
try {
  const env = { LOG_LEVEL: 'silent', PORT: '0', TEMPORAL_ADDRESS: '127.0.0.1:1', DATA_DIR: '/tmp/browse-bench-db' } as const;
  const services = createServices(loadConfig(env), { databaseUrl: pgs.url('bench_10000'), temporalAddress: '127.0.0.1:1' });
  const app = await listen(createApp(services, operations).callback());
  for (const path of ['/', '/launches', '/launches']) {
    const t = performance.now();
    const { stdout: out } = await promisify(exec)(`curl -s -o /dev/null -D - -H 'accept-encoding: gzip, deflate, br, zstd' -H 'user-agent: Mozilla/5.0 Chrome/131' -w 'size %{size_download} time %{time_total}\n' ${app.url}${path}`);
    console.log(path, (performance.now() - t).toFixed(1), 'ms\n', out);
  }
  await app.close(); await services.close();
} finally { await pgs.stop(); }
process.exit(0);
