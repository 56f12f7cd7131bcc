import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * Brotli's quality for bodies compressed once and sent many times: 5 makes pages about a tenth
 * smaller than gzip and a large sitemap half its size, in about gzip's time (11 takes ten times longer).
 */
const BROTLI_QUALITY = 5;

/** A body kept to be sent many times: as it is, and compressed once in each encoding browsers ask for. */
export interface Compressed {
  plain: Buffer;
  gzip: Buffer;
  br: Buffer;
}

export async function compress(text: string): Promise<Compressed> {
  const plain = Buffer.from(text);
  const [zipped, br] = await Promise.all([
    gzipAsync(plain),
    brotliAsync(plain, {
      params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length },
    }),
  ]);
  return { plain, gzip: zipped, br };
}

/** The body each response was sent from by sendCompressed (so a kept copy of it is not compressed again). */
const sentBodies = new WeakMap<Context, Compressed>();

export const compressedBody = (ctx: Context): Compressed | undefined => sentBodies.get(ctx);

/** Sends brotli to a client that accepts it, else the gzip to one that accepts that, else the plain bytes. */
export function sendCompressed(ctx: Context, body: Compressed): void {
  sentBodies.set(ctx, body);
  ctx.vary('Accept-Encoding');
  const encoding = encodingFor(ctx);
  if (encoding !== 'identity') ctx.set('Content-Encoding', encoding);
  ctx.body = body[encoding === 'identity' ? 'plain' : encoding];
}

type Encoding = 'br' | 'gzip' | 'identity';

/** Answers by Accept-Encoding header: browsers send a handful of them, and negotiating costs a parse per request. */
const encodings = new LRUCache<string, Encoding>({ max: 500 });

/**
 * Brotli whenever the client accepts it: browsers list gzip first with the same weight
 * (`gzip, deflate, br, zstd`), so the client's order would never pick the smaller body.
 */
function encodingFor(ctx: Context): Encoding {
  const header = ctx.get('accept-encoding');
  const known = encodings.get(header);
  if (known) return known;
  const encoding: Encoding =
    ctx.acceptsEncodings('br') === 'br' ? 'br' : ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? 'gzip' : 'identity';
  if (header.length <= 200) encodings.set(header, encoding);
  return encoding;
}
