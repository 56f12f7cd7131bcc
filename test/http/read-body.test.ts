import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { AppError, payloadTooLarge } from '../../src/errors/errors.ts';
import { readBody } from '../../src/http/read-body.ts';

/**
 * A server whose handler first waits `delayMs` (as ours awaits authentication) and then reads the
 * body; resolves with what readBody did.
 */
async function server(delayMs: number) {
  let settle!: (outcome: string) => void;
  const outcome = new Promise<string>((resolve) => (settle = resolve));
  const srv = http.createServer(async (req, res) => {
    await new Promise((r) => setTimeout(r, delayMs));
    try {
      settle(`read ${(await readBody(req, 1000, () => payloadTooLarge(1000))).length} bytes`);
    } catch (err) {
      settle(err instanceof AppError ? err.code : String(err));
    }
    res.end();
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return { port: (srv.address() as AddressInfo).port, outcome, close: () => srv.close() };
}

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<string>((r) => setTimeout(() => r(`still waiting after ${ms} ms`), ms))]);

test('a client that leaves after sending the whole body does not leave the handler waiting', async (t) => {
  const s = await server(200);
  t.teardown(s.close);
  const socket = net.connect(s.port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const body = '{"items":[]}';
  socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  await new Promise((r) => setTimeout(r, 50));
  socket.destroy();
  t.is(await within(s.outcome, 3000), 'request_aborted');
});

test('a client that stays gets its body read', async (t) => {
  const s = await server(50);
  t.teardown(s.close);
  const res = await fetch(`http://127.0.0.1:${s.port}/`, { method: 'POST', body: 'x'.repeat(10) });
  t.is(res.status, 200);
  t.is(await within(s.outcome, 3000), 'read 10 bytes');
});
