import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
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

/**
 * The same command in this process against the env's services (spawning node costs seconds under
 * load): exit code and what it printed. Captures console output, so use it in serial tests only.
 */
export async function adminInProcess(env: Pick<TestEnv, 'services'>, ...args: string[]): Promise<AdminResult> {
  const { runAdmin } = await import('../../src/admin/cli.ts');
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...parts: unknown[]) => out.push(parts.join(' '));
  console.error = (...parts: unknown[]) => err.push(parts.join(' '));
  try {
    const code = await runAdmin(env.services.db, args, env.services);
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    Object.assign(console, { log, error });
  }
}
