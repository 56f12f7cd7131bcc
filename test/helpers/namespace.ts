import { createHash } from 'node:crypto';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Temporal namespace of a test file (a path or file: URL): stable, short, valid. */
export function namespaceFor(file: string): string {
  const rel = path.relative(ROOT, file.startsWith('file:') ? new URL(file).pathname : file);
  return `t-${createHash('sha1').update(rel).digest('hex').slice(0, 12)}`;
}
