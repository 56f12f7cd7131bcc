import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The status it was answered with; null when it was left hanging. */
  answered: number | null;
}

/**
 * A webhook receiver on 127.0.0.1: `answer(n)` decides the status of the n-th request (from 1),
 * or 'hang' to leave it without an answer (the sender's timeout or death ends it).
 */
export async function startReceiver(answer: (n: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered: null };
      received.push(entry);
      const status = answer(received.length);
      if (status === 'hang') return;
      entry.answered = status;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
