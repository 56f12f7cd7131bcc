import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { Browser } from 'playwright-core';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { startBrowserTestEnv } from '../helpers/browser.ts';
import { freePort, request, type TestEnv } from '../helpers/env.ts';
import { authorizeInBrowser } from '../helpers/oauth-client.ts';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against our /mcp.
 * Scenarios that do not apply to this server (it offers tools only: no resources, prompts,
 * sampling, elicitation or sessions) are listed with a reason in conformance-baseline-*.yml;
 * the CLI fails on any other failure, and also on a baseline entry that starts passing.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url)));
test.after.always(() => close?.());

function conformance(args: string[], onOutput: (text: string) => void = () => {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      onOutput(output);
    });
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

test.serial('MCP conformance, authorization server: metadata and the authorization code grant with PKCE', async (t) => {
  const port = await freePort();
  const callback = `http://127.0.0.1:${port}/callback`;
  const registered = await request(env, 'POST', '/oauth/register', {
    body: {
      client_name: 'Conformance',
      redirect_uris: [callback],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    },
  });
  t.is(registered.status, 201);
  const password = 'conformance password 1';
  const email = 'conformance@example.com';
  await createVerifiedUser(env.services.db, email, password);
  // The suite prints an authorization URL for a person and waits for its callback server:
  // the browser plays the person (our sign-in and consent pages) and lands on that server.
  let opened: Promise<unknown> | undefined;
  const outputDir = await fs.mkdtemp(path.join(os.tmpdir(), 'conformance-auth-'));
  const run = conformance(
    [
      'authorization',
      '-o',
      outputDir,
      '--url',
      env.baseUrl,
      '--client-id',
      registered.body.client_id,
      '--resource',
      `${env.baseUrl}/mcp`,
      '--port',
      String(port),
    ],
    (output) => {
      const url = /^(http\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1];
      if (url && !opened) opened = authorizeInBrowser(browser, new URL(url), { email, password }, 'Allow', { callback });
    },
  );
  const { code, output } = await run;
  await opened;
  if (code !== 0) t.log(output, await failedChecks(outputDir));
  await fs.rm(outputDir, { recursive: true, force: true });
  t.is(code, 0);
  t.regex(output, /authorization-code-grant/);
});

/** The failed checks the suite saved, for the test log. */
async function failedChecks(dir: string): Promise<string> {
  const files = (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith('checks.json'));
  const checks = await Promise.all(files.map(async (f) => JSON.parse(await fs.readFile(path.join(dir, f), 'utf8'))));
  return JSON.stringify(
    checks.flat().filter((c: { status: string }) => c.status === 'FAILURE'),
    null,
    2,
  );
}
