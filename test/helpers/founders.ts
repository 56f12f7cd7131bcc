import zlib from 'node:zlib';
import sharp from 'sharp';
import { api, type TestEnv } from './env.ts';
import { insertLiveListing } from './listings.ts';

/** `n` distinct words of plain text. */
export const words = (n: number, stem = 'word') => Array.from({ length: n }, (_, i) => `${stem}${i}`).join(' ');

/** A real image of the given format made by sharp. */
export async function imageBytes(format: 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' = 'png', width = 200, height = 150): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 90, b: 40 } } })
    .toFormat(format)
    .toBuffer();
}

/** A listing owned by the user, with its slug. */
export async function ownedListing(env: TestEnv, ownerId: number, name = 'Story Co'): Promise<{ id: number; slug: string }> {
  const id = await insertLiveListing(env.services.db, { name: `${name} ${Math.random().toString(36).slice(2, 8)}`, ownerId });
  const { slug } = (await env.services.db('listings').where({ id }).first('slug'))!;
  return { id, slug };
}

/** Makes the user's founder profile complete through the API (name, bio, link, photo). */
export async function completeProfile(env: TestEnv, key: string): Promise<void> {
  const patched = await api(env, 'PATCH', '/me/founder-profile', {
    key,
    body: { display_name: 'Ada Founder', bio: words(25, 'bio'), links: ['https://ada.example.com/'] },
  });
  if (patched.status !== 200) throw new Error(`update_founder_profile: ${patched.status} ${JSON.stringify(patched.body)}`);
  const photo = await api(env, 'PUT', '/me/founder-profile/photo', {
    key,
    body: { image_base64: (await imageBytes()).toString('base64') },
  });
  if (photo.status !== 200) throw new Error(`upload_founder_photo: ${photo.status} ${JSON.stringify(photo.body)}`);
}

/** Three sections of 110 words each: enough to publish. */
export const PUBLISHABLE = { how_started: words(110, 'a'), problem: words(110, 'b'), what_built: words(110, 'c') };

/** A valid PNG header that claims width×height pixels but carries almost no data (a pixel bomb). */
export function pngClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
