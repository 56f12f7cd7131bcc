/** Real websites on loopback for crawler and draft tests. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface TestSite {
  /** Origin with a trailing slash, e.g. http://127.0.0.1:1234/ */
  url: string;
  port: number;
  requests: string[];
  close(): Promise<void>;
}

/** Serves `routes` (path → handler) on 127.0.0.1; unknown paths answer 404. */
export async function serve(routes: Record<string, Handler>): Promise<TestSite> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const handler = routes[(req.url ?? '/').split('?')[0]!];
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html =
  (body: string, status = 200, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };

export const text =
  (body: string, status = 200, contentType = 'text/plain'): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  };

export const redirect =
  (location: string, status = 301): Handler =>
  (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };

/** A port on 127.0.0.1 with nothing listening. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The example company website of the repository (examples/company-site, "Quillstone") on a free
 * loopback port: a realistic site with about, pricing and FAQ pages, socials and JSON-LD.
 */
export { startExampleSite as serveExampleSite } from '../../examples/company-site/server.ts';
