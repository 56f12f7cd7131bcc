import { AsyncLocalStorage } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { runAdmin } from '../../src/admin/cli.ts';
import type { TestEnv } from './env.ts';

const run = promisify(execFile);
const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

export interface AdminResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `main.ts admin ...` the way `npm run admin --` does, against the env's database. */
export function admin(env: Pick<TestEnv, 'databaseUrl'>, ...args: string[]): Promise<AdminResult> {
  return adminWith(env, {}, ...args);
}

/** Like admin() with more environment, e.g. TEMPORAL_ADDRESS for commands that signal workflows. */
export async function adminWith(env: Pick<TestEnv, 'databaseUrl'>, extra: Record<string, string>, ...args: string[]): Promise<AdminResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, 'admin', ...args], {
      env: { ...process.env, DATABASE_URL: env.databaseUrl, LOG_LEVEL: 'silent', ...extra },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Where console output of an in-process command goes: the command's own buffers, found by async context. */
const captured = new AsyncLocalStorage<{ out: string[]; err: string[] }>();
let consoleRouted = false;

function routeConsole(): void {
  if (consoleRouted) return;
  consoleRouted = true;
  const { log, error } = console;
  console.log = (...parts: unknown[]) => {
    const sink = captured.getStore();
    if (sink) sink.out.push(parts.join(' '));
    else log(...parts);
  };
  console.error = (...parts: unknown[]) => {
    const sink = captured.getStore();
    if (sink) sink.err.push(parts.join(' '));
    else error(...parts);
  };
}

/**
 * The same command in this process against the env's services (spawning node costs seconds under
 * load): exit code and what it printed, as `main.ts admin` would (an error runAdmin throws ends the
 * process with 1 and "Listing Directory stopped: <message>", as main.ts's last catch does). Output
 * is captured per call by async context, so concurrent tests may use it. Keep a real admin() run
 * or two per file for the wiring through main.ts.
 */
export async function adminInProcess(env: Pick<TestEnv, 'services'>, ...args: string[]): Promise<AdminResult> {
  routeConsole();
  const sink = { out: [] as string[], err: [] as string[] };
  const code = await captured.run(sink, async () => {
    try {
      return await runAdmin(env.services.db, args, env.services);
    } catch (err) {
      console.error(`Listing Directory stopped: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }
  });
  return { code, stdout: sink.out.join('\n'), stderr: sink.err.join('\n') };
}
