import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import test from 'ava';
import { bodyFor } from '../../src/web/body-buffers.ts';

const response = () => new EventEmitter() as unknown as ServerResponse;

test('a body buffer is reused only after its answer finished, and never while another answer holds it', (t) => {
  const first = response();
  const a = bodyFor(first, 20_000);
  t.is(a.length, 20_000);
  const b = bodyFor(response(), 20_000);
  t.not(a.buffer, b.buffer, 'the first answer is still being sent');
  first.emit('finish');
  const c = bodyFor(response(), 30_000);
  t.is(c.buffer, a.buffer, 'the same 32 KB class, free again');
  t.is(c.length, 30_000);
  t.not(bodyFor(response(), 20_000).buffer, a.buffer, 'taken again: not handed out twice');
});

test('a body larger than the largest class is its own buffer and is not kept', (t) => {
  const res = response();
  const big = bodyFor(res, 5 * 1024 * 1024);
  res.emit('finish');
  t.is(big.length, 5 * 1024 * 1024);
  t.not(bodyFor(response(), 5 * 1024 * 1024).buffer, big.buffer);
});
