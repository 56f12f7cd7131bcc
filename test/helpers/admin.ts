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
