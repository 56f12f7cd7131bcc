import type { IncomingMessage } from 'node:http';
import type { AppError } from '../errors.ts';

/**
 * THE size-capped body reader (REST JSON, MCP messages, multipart forms): the body, refused with
 * `tooLarge()` as soon as Content-Length or the bytes read pass `maxBytes`. The rest of a refused
 * body is drained, not destroyed, so the client still reads the answer (browsers stop otherwise).
 */
export async function readBody(req: IncomingMessage, maxBytes: number, tooLarge: () => AppError): Promise<Buffer> {
  if (Number(req.headers['content-length']) > maxBytes) {
    req.resume();
    throw tooLarge();
  }
  const body = await new Promise<Buffer | null>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      chunks.length = 0;
      resolve(null);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
  if (!body) throw tooLarge();
  return body;
}

/** Whether the request carries a body at all (RFC 9110: Content-Length other than 0, or Transfer-Encoding). */
export function hasRequestBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
