import type http from 'node:http';

/**
 * Stops accepting connections and waits for the requests in flight to finish (SIGTERM on a
 * deploy). Keep-alive connections are closed as soon as they are idle; whatever still runs
 * after `graceMs` is cut off, so a hung request cannot keep the process alive for ever.
 */
export function drainServer(server: http.Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}
