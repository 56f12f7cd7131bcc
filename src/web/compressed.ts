import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';

const gzipAsync = promisify(gzip);

/** A body kept to be sent many times: as it is, and gzipped once for the clients that ask. */
export interface Compressed {
  plain: Buffer;
  gzip: Buffer;
}

export async function compress(text: string): Promise<Compressed> {
  const plain = Buffer.from(text);
  return { plain, gzip: await gzipAsync(plain) };
}

/** The body each response was sent from by sendCompressed (so a kept copy of it is not compressed again). */
const sentBodies = new WeakMap<Context, Compressed>();

export const compressedBody = (ctx: Context): Compressed | undefined => sentBodies.get(ctx);

/** Sends the gzip to a client that accepts it, the plain bytes to any other. */
export function sendCompressed(ctx: Context, body: Compressed): void {
  sentBodies.set(ctx, body);
  ctx.vary('Accept-Encoding');
  if (acceptsGzip(ctx)) {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = body.gzip;
  } else {
    ctx.body = body.plain;
  }
}

/** Answers by Accept-Encoding header: browsers send a handful of them, and negotiating costs a parse per request. */
const gzipAnswers = new LRUCache<string, boolean>({ max: 500 });

function acceptsGzip(ctx: Context): boolean {
  const header = ctx.get('accept-encoding');
  const known = gzipAnswers.get(header);
  if (known !== undefined) return known;
  const gzip = ctx.acceptsEncodings('gzip', 'identity') === 'gzip';
  if (header.length <= 200) gzipAnswers.set(header, gzip);
  return gzip;
}
