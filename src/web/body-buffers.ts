import type { ServerResponse } from 'node:http';

/** Size classes: powers of two from 16 KB; a larger body is allocated as it is and not kept. */
const SMALLEST = 16 * 1024;
const LARGEST = 4 * 1024 * 1024;
/** Free buffers kept per class: about as many as answers in flight at once. */
const KEPT_PER_CLASS = 64;

const free = new Map<number, Buffer[]>();

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
  const buffer = free.get(capacity)?.pop() ?? Buffer.allocUnsafeSlow(capacity);
  // Only after 'finish' is the socket done with the bytes; an answer cut off before keeps its buffer.
  res.once('finish', () => {
    let kept = free.get(capacity);
    if (!kept) free.set(capacity, (kept = []));
    if (kept.length < KEPT_PER_CLASS) kept.push(buffer);
  });
  return buffer.subarray(0, size);
}
