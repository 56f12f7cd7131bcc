import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One response of a test website. */
export interface SitePage {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait before sending the headers. */
  delayMs?: number;
}

export interface TestSite {
  /** http://127.0.0.1:{port} */
  origin: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** A real HTTP website on loopback; unknown paths are 404. */
export async function serveSite(pages: Record<string, SitePage | string>): Promise<TestSite> {
  const requests: string[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const entry = pages[path];
    const page: SitePage = typeof entry === 'string' ? { body: entry } : (entry ?? { status: 404, body: 'not found' });
    const send = () => {
      timers.delete(timer);
      res.writeHead(page.status ?? 200, { 'content-type': 'text/html; charset=utf-8', ...page.headers });
      res.end(page.body ?? '');
    };
    const timer = setTimeout(send, page.delayMs ?? 0);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
