import { Session } from 'node:inspector/promises';
import fs from 'node:fs';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { operations } from '../src/operations/index.ts';
import { createServices } from '../src/services.ts';
import { startEmbeddedPostgres } from '../src/embedded/postgres.ts';
import { listen, freePort } from './harness.ts';
const pgs = await startEmbeddedPostgres({ dir: '/tmp/browse-bench-db/pg', port: await freePort() });
try {
  const env = {
    LOG_LEVEL: 'silent',
    PORT: '0',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    DATA_DIR: '/tmp/browse-bench-db',
    PAGE_CACHE_TTL_MS: '0',
  } as const;
  const services = createServices(loadConfig(env), { databaseUrl: pgs.url('bench_10000'), temporalAddress: '127.0.0.1:1' });
  const app = await listen(createApp(services, operations).callback());
  const get = async (i: number) =>
    (
      await fetch(app.url + '/listings/bench-' + (1 + (i % 2000)), {
        headers: { 'user-agent': 'Mozilla/5.0 Chrome/131.0', 'accept-encoding': 'gzip' },
      })
    ).arrayBuffer();
  for (let i = 0; i < 300; i++) await get(i);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const cpu = process.threadCpuUsage();
  const N = 1000;
  const t0 = performance.now();
  for (let i = 0; i < N; i += 4) await Promise.all([get(i), get(i + 1), get(i + 2), get(i + 3)]);
  const used = process.threadCpuUsage(cpu);
  const { profile } = await session.post('Profiler.stop');
  fs.writeFileSync('/tmp/render.cpuprofile', JSON.stringify(profile));
  console.log(
    `${N} renders in ${(performance.now() - t0).toFixed(0)} ms; thread CPU ${((used.user + used.system) / N).toFixed(0)} µs/render (incl. client fetch)`,
  );
  await app.close();
  await services.close();
} finally {
  await pgs.stop();
}
process.exit(0);
