import type { ServerResponse } from 'node:http';

/** Size classes: powers of two from 16 KB; a larger body is allocated as it is and not kept. */
const SMALLEST = 16 * 1024;
const LARGEST = 4 * 1024 * 1024;
/** Free buffers kept, in bytes over all classes: a few hundred answers in flight. */
const KEPT_BYTES = 32 * 1024 * 1024;

const free = new Map<number, Buffer[]>();
let keptBytes = 0;

/**
 * A body of `size` bytes for `res`, from buffers reused once an earlier answer was handed to the
 * socket ('finish'). A signed-in page is its own bytes for each person (tens to hundreds of KB):
 * allocated anew at thousands of pages a second, that memory outside V8's heap made it collect
 * the whole heap twice a second, pausing every answer 10–20 ms.
 */
export function bodyFor(res: ServerResponse, size: number): Buffer {
  if (size > LARGEST) return Buffer.allocUnsafe(size);
  let capacity = SMALLEST;
  while (capacity < size) capacity *= 2;
  const reused = free.get(capacity)?.pop();
  if (reused) keptBytes -= capacity;
  const buffer = reused ?? Buffer.allocUnsafeSlow(capacity);
  // Only after 'finish' is the socket done with the bytes; the buffer of an answer cut off before
  // is left to the garbage collector.
  res.once('finish', () => {
    if (keptBytes + capacity > KEPT_BYTES) return;
    let kept = free.get(capacity);
    if (!kept) free.set(capacity, (kept = []));
    kept.push(buffer);
    keptBytes += capacity;
  });
  return buffer.subarray(0, size);
}
