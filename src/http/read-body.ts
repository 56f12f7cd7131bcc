import type { IncomingMessage } from 'node:http';
import { badRequest, type AppError } from '../errors.ts';

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
  // A client that left after sending the whole body (a load generator stopping, a closed tab)
  // gives neither 'end' nor 'error' once the request is destroyed: without this, the request's
  // handler would wait forever (and a graceful shutdown with it).
  const gone = () => badRequest('request_aborted', 'The client closed the connection before the body was read.');
  if (req.destroyed && !req.readableEnded) throw gone();
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
    req.on('close', () => {
      if (!req.readableEnded) reject(gone());
    });
  });
  if (!body) throw tooLarge();
  return body;
}

/** Whether the request carries a body at all (RFC 9110: Content-Length other than 0, or Transfer-Encoding). */
export function hasRequestBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
