import { createHash } from 'node:crypto';

/** SHA-256 of a string or bytes as lowercase hex: the one hash of stored secrets, request bodies and ETags. */
export const sha256Hex = (value: string | Buffer): string => createHash('sha256').update(value).digest('hex');
