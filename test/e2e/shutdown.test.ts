import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { freePort, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { serve, type TestSite } from '../helpers/site.ts';

/** SIGTERM on a real `main.ts api` process: the request in flight completes, new ones are refused, exit 0. */

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

let env: TestEnv;
let site: TestSite;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  site = await serve({ '/': (_req, res) => res.end('<h1>Shutdown Co</h1>') });
});
test.after.always(async () => {
  await env?.close();
  await site?.close();
});

interface Api {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `main.ts api` on free ports against the env's database and namespace; resolves once it listens. */
async function startApi(): Promise<Api> {
  const port = await freePort();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ld-shutdown-'));
  const child = spawn(process.execPath, [MAIN, 'api'], {
    env: {
      ...process.env,
      DATABASE_URL: env.databaseUrl,
      TEMPORAL_ADDRESS: env.temporalAddress,
      TEMPORAL_NAMESPACE: env.namespace,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
      METRICS_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      CRAWL_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  exited.finally(() => fs.rm(dataDir, { recursive: true, force: true }));
  await waitFor(
    () => output.includes('"api listening"'),
    () => `the api did not start:\n${output}`,
  );
  return { child, port, output: () => output, exited };
}

async function waitFor(done: () => boolean, message: () => string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error(message());
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('SIGTERM lets the request in flight finish, refuses new connections and exits 0', async (t) => {
  const { key } = await env.user();
  const api = await startApi();
  t.teardown(() => void api.child.kill('SIGKILL'));
  const body = JSON.stringify({ url: site.url });

  // A slow client: the headers and half the body now, the rest after SIGTERM.
  const response = new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: api.port,
        method: 'POST',
        path: '/api/v1/drafts',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-request-id': 'slow-1',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', (err) => reject(new Error(`${err.message}\n${api.output()}`)));
    req.write(body.slice(0, 10));
    setTimeout(() => {
      api.child.kill('SIGTERM');
      waitFor(
        () => api.output().includes('"shutting down"'),
        () => 'no shutdown log',
      ).then(async () => {
        // Draining: the listening socket is closed, so a new client is refused.
        const refused = await new Promise<string>((done) => {
          http
            .get({ host: '127.0.0.1', port: api.port, path: '/healthz' }, () => done('answered'))
            .on('error', (err: NodeJS.ErrnoException) => done(err.code ?? 'error'));
        });
        t.is(refused, 'ECONNREFUSED');
        await new Promise((r) => setTimeout(r, 300));
        req.end(body.slice(10));
      }, reject);
    }, 300);
  });

  const done = await response;
  t.is(done.status, 201, JSON.stringify(done.body));
  t.is(done.body.status, 'crawling');
  t.is(await api.exited, 0, api.output());
  // The request's own log line came before the exit.
  t.regex(api.output(), /"requestId":"slow-1".*"operation":"create_draft".*"status":201/);
  t.truthy(await env.services.db('drafts').where({ id: done.body.id }).first());
});
