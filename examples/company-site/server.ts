import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * A small company website (public/) served on loopback, so that drafting a listing can be tried
 * and tested without the internet: `npm run example-site`, or startExampleSite() in tests.
 * `/about` serves about.html; only the files present at start are served (no path is ever
 * joined from the request), everything else is a 404.
 */
const PUBLIC = path.join(import.meta.dirname, 'public');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface ExampleSite {
  /** Origin with a trailing slash, e.g. http://127.0.0.1:1234/ */
  url: string;
  port: number;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** URL path → file, for every file under public/ (`index.html` is `/`, `x.html` is also `/x`). */
async function routes(): Promise<Map<string, string>> {
  const files = (await fs.readdir(PUBLIC, { recursive: true })).map((f) => f.split(path.sep).join('/'));
  const map = new Map<string, string>();
  for (const file of files) {
    if (!path.extname(file)) continue;
    map.set(`/${file}`, file);
    if (file === 'index.html') map.set('/', file);
    else if (file.endsWith('.html')) map.set(`/${file.slice(0, -5)}`, file);
  }
  return map;
}

/** Serves the example site on 127.0.0.1 (port 0: a free one). */
export async function startExampleSite(port = 0): Promise<ExampleSite> {
  const files = await routes();
  const requests: string[] = [];
  const server = http.createServer(async (req, res) => {
    const pathname = (req.url ?? '/').split('?')[0]!;
    requests.push(pathname);
    const file = files.get(pathname);
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(file ? 405 : 404, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(file ? '<h1>Method not allowed</h1>' : '<h1>Not found</h1>');
    }
    const body = await fs.readFile(path.join(PUBLIC, file));
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/`,
    port: actual,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main(): Promise<void> {
  // A script of its own, not a setting of the service: it reads its one variable itself.
  const port = Number(process.env.EXAMPLE_SITE_PORT ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`EXAMPLE_SITE_PORT must be a port number (0-65535), not "${process.env.EXAMPLE_SITE_PORT}"`);
  }
  const site = await startExampleSite(port).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw new Error(`port ${port} is taken; set EXAMPLE_SITE_PORT to a free port (or 0 for any)`);
    throw err;
  });
  console.log(`Example company site (Quillstone) at ${site.url}`);
  console.log('Draft a listing from it with CRAWL_ALLOW_PRIVATE_NETWORKS=true set on the service (see README "Try it").');
  const stop = () => void site.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.main) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
