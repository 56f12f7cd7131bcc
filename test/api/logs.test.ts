import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import test from 'ava';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { operations } from '../../src/operations/index.ts';
import { installTemporalRuntime } from '../../src/temporal/runtime.ts';
import { TASK_QUEUES } from '../../src/workflows/contracts/task-queues.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { temporalClient } from '../helpers/workflows.ts';

/** Log lines of a request carry its request id and operation; workflow and activity lines carry the workflow id. */

const lines: Record<string, any>[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
    done();
  },
});
const log = pino({ level: 'debug' }, sink);

let env: TestEnv;
let baseUrl: string;
let server: http.Server;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
  // The SDK's runtime (with our logger) must exist before the first worker connection of the process.
  installTemporalRuntime({ host: '127.0.0.1', metrics: { port: null, temporalPort: null } }, log);
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  baseUrl = `http://${host}`;
  // The same app with a capturing logger; /mcp answers to this server's Host too.
  const config = { ...env.services.config, mcp: { ...env.services.config.mcp, allowedHosts: [host] } };
  server.on('request', createApp({ ...env.services, config, log }, operations).callback());
});
test.after.always(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await env?.close();
});

const withId = (requestId: string) => lines.filter((l) => l.requestId === requestId);

test.serial('a REST request logs its request id and operation', async (t) => {
  const res = await fetch(`${baseUrl}/api/v1/listings?q=logs`, { headers: { 'X-Request-Id': 'log-test-rest-1' } });
  t.is(res.status, 200);
  const mine = withId('log-test-rest-1');
  t.true(mine.length >= 1);
  t.like(
    mine.find((l) => l.msg === 'request'),
    { operation: 'search_listings', status: 200, path: '/api/v1/listings' },
  );
  // A refused call is logged the same way.
  await fetch(`${baseUrl}/api/v1/listings?page=-1`, { headers: { 'X-Request-Id': 'log-test-rest-2' } });
  t.like(
    withId('log-test-rest-2').find((l) => l.msg === 'request'),
    { operation: 'search_listings', status: 400 },
  );
});

test.serial('an MCP request logs its request id and method; a page its area', async (t) => {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'X-Request-Id': 'log-test-mcp-1',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.text();
  t.like(
    withId('log-test-mcp-1').find((l) => l.msg === 'request'),
    { operation: 'mcp:tools/list' },
  );
  await fetch(`${baseUrl}/`, { headers: { 'X-Request-Id': 'log-test-web-1' } });
  t.like(
    withId('log-test-web-1').find((l) => l.msg === 'request'),
    { operation: 'web', path: '/' },
  );
});

test.serial('workflow and activity log lines carry the workflow id', async (t) => {
  await env.startWorkers();
  const { client, close } = await temporalClient(env);
  try {
    await client.workflow.execute('maintenanceWorkflow', {
      taskQueue: TASK_QUEUES.ranking,
      workflowId: 'log-test-maintenance',
      args: [{}],
    });
  } finally {
    await close();
  }
  const flow = lines.filter((l) => l.workflowId === 'log-test-maintenance');
  t.true(flow.some((l) => l.msg === 'Workflow completed' && l.workflowType === 'maintenanceWorkflow'));
  t.true(flow.some((l) => l.msg === 'Activity completed' && l.activityType === 'purgeBatch'));
  t.true(flow.every((l) => l.component === 'temporal'));
});
