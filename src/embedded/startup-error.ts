import net from 'node:net';

/** A start-up failure the person starting the service can fix: says what failed and which setting changes it. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** One port the service is about to listen on, and the setting that moves it. */
export interface PortNeed {
  host: string;
  port: number;
  /** What would listen there, e.g. "the embedded PostgreSQL". */
  what: string;
  /** What to change, e.g. "set EMBEDDED_PG_PORT to a free port, or DATABASE_URL to use another PostgreSQL". */
  fix: string;
}

/**
 * Checks, before anything starts, that each port can be listened on, so a taken port is named
 * at once instead of surfacing as a child process that exits without a word.
 */
export async function assertPortsFree(needs: PortNeed[]): Promise<void> {
  for (const need of needs) {
    const problem = await listenProblem(need.host, need.port);
    if (problem) throw new StartupError(`${need.what} cannot listen on ${need.host}:${need.port}: ${problem}. To fix it, ${need.fix}.`);
  }
}

function listenProblem(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve('the port is already in use (another PostgreSQL or Temporal, or a running `npm start`?)');
      else if (err.code === 'EACCES') resolve('this user may not listen on that port');
      else resolve(err.message);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}
