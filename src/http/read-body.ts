import type { IncomingMessage } from 'node:http';
import getRawBody, { type RawBodyError } from 'raw-body';
import { badRequest, type AppError } from '../errors/errors.ts';

/**
 * THE size-capped body reader (REST JSON, MCP messages, multipart and urlencoded forms), on
 * raw-body: the body, refused with `tooLarge()` as soon as Content-Length or the bytes read pass
 * `maxBytes` (each route passes its own limit). The rest of a refused body is drained, not
 * destroyed, so the client still reads the answer (browsers stop otherwise).
 */
export async function readBody(req: IncomingMessage, maxBytes: number, tooLarge: () => AppError): Promise<Buffer> {
  if (Number(req.headers['content-length']) > maxBytes) {
    req.resume();
    throw tooLarge();
  }
  // A client that left after sending the whole body (a load generator stopping, a closed tab)
  // gives neither 'end' nor 'error' once the request is destroyed: it is told apart here.
  const gone = () => badRequest('request_aborted', 'The client closed the connection before the body was read.');
  if (req.destroyed && !req.readableEnded) throw gone();
  try {
    return await getRawBody(req, { limit: maxBytes });
  } catch (err) {
    const type = (err as Partial<RawBodyError>).type;
    if (type === 'entity.too.large') {
      req.resume(); // raw-body paused it: drain the rest
      throw tooLarge();
    }
    if (type === 'request.aborted' || type === 'stream.not.readable') throw gone();
    throw err;
  }
}

/** Whether the request carries a body at all (RFC 9110: Content-Length other than 0, or Transfer-Encoding). */
export function hasRequestBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
