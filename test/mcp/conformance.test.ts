import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against our /mcp.
 * Scenarios that do not apply to this server (it offers tools only: no resources, prompts,
 * sampling, elicitation or sessions) are listed with a reason in conformance-baseline-*.yml;
 * the CLI fails on any other failure, and also on a baseline entry that starts passing.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(async () => {
  await env?.close();
});

function conformance(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

const RUNS = [
  { name: 'active suite (2025 versions)', args: [], baseline: 'conformance-baseline-2025.yml' },
  { name: '2026-07-28', args: ['--spec-version', '2026-07-28'], baseline: 'conformance-baseline-2026-07-28.yml' },
];

for (const run of RUNS) {
  test.serial(`MCP conformance, ${run.name}: passes apart from the scenarios that do not apply`, async (t) => {
    const outputDir = await fs.mkdtemp(path.join(os.tmpdir(), 'conformance-'));
    const baseline = path.join(import.meta.dirname, run.baseline);
    const args = ['server', '--url', `${env.baseUrl}/mcp`, ...run.args, '--expected-failures', baseline, '-o', outputDir];
    const { code, output } = await conformance(args);
    await fs.rm(outputDir, { recursive: true, force: true });
    if (code !== 0) t.log(output);
    t.is(code, 0);
  });
}
