import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { operations } from '../../src/operations/index.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

test('the served OpenAPI document passes redocly lint with zero errors', async (t) => {
  const res = await api(env, 'GET', '/openapi.json');
  t.is(res.status, 200);
  t.is(res.body.openapi, '3.1.0');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'openapi-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'openapi.json');
  await fs.writeFile(file, JSON.stringify(res.body));
  const result = await run(
    process.execPath,
    [path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'],
    { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 20e6 },
  ).catch((err: { stdout: string; stderr: string }) => err);
  const report = JSON.parse(result.stdout);
  const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
  t.deepEqual(errors, []);
});

test('every registry operation is a documented route, and nothing else is', async (t) => {
  const doc = (await api(env, 'GET', '/openapi.json')).body;
  const documented = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
    .flatMap((item) => Object.values(item).map((op) => op.operationId))
    .sort();
  t.deepEqual(documented, operations.map((op) => op.name).sort());
  const createDraft = doc.paths['/drafts'].post;
  t.deepEqual(createDraft.security, [{ bearerAuth: ['listings:write'] }]);
  t.truthy(createDraft.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key'));
  t.truthy(createDraft.responses['400']);
});
