import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Config } from '../config/config.ts';
import type { Endpoints } from '../services.ts';
import { endpointsFor } from './stack.ts';

/**
 * `npm start` writes where its embedded PostgreSQL and Temporal listen into its data directory,
 * so an admin command or a migration run against the same DATA_DIR finds them whatever ports
 * they were started on, instead of trying to start a second PostgreSQL on a locked cluster.
 */
const FILE = 'running-stack.json';

const Announcement = z.object({
  pid: z.number().int().positive(),
  databaseUrl: z.string().min(1),
  temporalAddress: z.string().min(1),
  startedAt: z.string(),
});

/** Writes the announcement; the returned function removes it again (on shutdown). */
export async function announceStack(dataDir: string, endpoints: Endpoints): Promise<() => Promise<void>> {
  const file = path.join(dataDir, FILE);
  const body: z.infer<typeof Announcement> = { pid: process.pid, ...endpoints, startedAt: new Date().toISOString() };
  await fs.mkdir(dataDir, { recursive: true });
  // Readable by its owner only: the database URL holds the embedded cluster's password.
  await fs.writeFile(file, JSON.stringify(body, null, 2), { mode: 0o600 });
  return async () => {
    const current = await readAnnouncement(file);
    if (current?.pid === process.pid) await fs.rm(file, { force: true });
  };
}

/** The endpoints of a `npm start` that is running on this data directory, or null. */
export async function runningStack(dataDir: string): Promise<Endpoints | null> {
  const found = await readAnnouncement(path.join(dataDir, FILE));
  if (!found || !alive(found.pid)) return null;
  return { databaseUrl: found.databaseUrl, temporalAddress: found.temporalAddress };
}

async function readAnnouncement(file: string): Promise<z.infer<typeof Announcement> | null> {
  try {
    const parsed = Announcement.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // absent or unreadable: nothing is announced
  }
}

/** A process that ended without removing its file (killed) is not running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user, so it is running.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Endpoints for a one-shot command: configured ones first, then a running `npm start`'s, then the defaults. */
export async function endpointsForCommand(config: Config): Promise<Endpoints> {
  const defaults = endpointsFor(config);
  const running = await runningStack(config.dataDir);
  return {
    databaseUrl: config.databaseUrl ?? running?.databaseUrl ?? defaults.databaseUrl,
    temporalAddress: config.temporal.address ?? running?.temporalAddress ?? defaults.temporalAddress,
  };
}
