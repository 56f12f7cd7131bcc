import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';

/**
 * A server process `npm start` spawned (PostgreSQL, the Temporal dev server) outlives it when it is
 * killed hard (SIGKILL, the OOM killer): nothing runs to stop its children. Each server is recorded
 * beside its data (who started it, its pid, what its command line names), so the next start can
 * recognise one whose starter is gone and stop it before it needs its ports and its data
 * (docs/decisions/embedded-servers-outliving-a-killed-start.md).
 */
export interface ServerRecord {
  /** The node process that spawned the server. */
  owner: number;
  pid: number;
  /** A path the server's command line holds (its data directory or file): guards against a reused pid. */
  mark: string;
  /** What asks it to stop cleanly: SIGINT is PostgreSQL's fast shutdown. */
  signal: 'SIGINT' | 'SIGTERM';
}

const exec = promisify(execFile);

/** Records a server this process started; the returned function forgets it again (after a clean stop). */
export async function recordServer(file: string, server: Omit<ServerRecord, 'owner'>): Promise<() => Promise<void>> {
  const record: ServerRecord = { owner: process.pid, ...server };
  await fs.writeFile(file, JSON.stringify(record), { mode: 0o600 });
  return async () => {
    const current = await readRecord(file);
    if (current?.owner === process.pid && current.pid === server.pid) await fs.rm(file, { force: true });
  };
}

/**
 * Stops the recorded server when its starter is gone: a process's parent changes only when the
 * parent dies, so a server whose parent is no longer its recorded owner was left behind. A server
 * still owned (a running `npm start` or admin command) is left alone. Returns the pid it stopped.
 */
export async function stopIfOrphaned(file: string, graceMs = 10_000): Promise<number | null> {
  const record = await readRecord(file);
  if (!record) return null;
  const found = await processInfo(record.pid);
  if (found && found.ppid === record.owner) return null;
  if (found && found.command.includes(record.mark)) await stopProcess(record.pid, record.signal, graceMs);
  await fs.rm(file, { force: true });
  return found && found.command.includes(record.mark) ? record.pid : null;
}

async function readRecord(file: string): Promise<ServerRecord | null> {
  try {
    const value = JSON.parse(await fs.readFile(file, 'utf8')) as Partial<ServerRecord>;
    const pidLike = (n: unknown): n is number => Number.isInteger(n) && (n as number) > 0;
    if (!pidLike(value.owner) || !pidLike(value.pid) || typeof value.mark !== 'string' || !value.mark) return null;
    return { owner: value.owner, pid: value.pid, mark: value.mark, signal: value.signal === 'SIGINT' ? 'SIGINT' : 'SIGTERM' };
  } catch {
    return null; // absent or damaged: nothing recorded
  }
}

/** Asks it to stop, then kills it after the grace period; resolves once it is gone. */
async function stopProcess(pid: number, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (!signalProcess(pid, signal)) return;
  if (await gone(pid, graceMs)) return;
  signalProcess(pid, 'SIGKILL');
  await gone(pid, 5_000);
}

function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!(await processInfo(pid))) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface ProcessInfo {
  ppid: number;
  command: string;
}

/**
 * The live process's parent and command line, or null when there is none. A zombie counts as gone:
 * an orphan's new parent (a container's init) may never reap it.
 */
export async function processInfo(pid: number): Promise<ProcessInfo | null> {
  const fromProc = await procInfo(pid);
  if (fromProc !== undefined) return fromProc;
  try {
    const { stdout } = await exec('ps', ['-ww', '-o', 'ppid=,stat=,args=', '-p', String(pid)]);
    const match = /^\s*(\d+)\s+(\S+)\s+(.*)$/s.exec(stdout.trim());
    if (!match || match[2]!.startsWith('Z')) return null;
    return { ppid: Number(match[1]), command: match[3]!.trim() };
  } catch {
    return null; // ps exits non-zero when no such process exists
  }
}

/** Linux's /proc, without spawning ps; undefined where there is no /proc. */
async function procInfo(pid: number): Promise<ProcessInfo | null | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') return null;
    const command = (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
    return { ppid: Number(ppid), command };
  } catch {
    return null;
  }
}
