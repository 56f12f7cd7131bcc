import type { Db } from '../db/knex.ts';
import type { MediaFile, MediaStore } from '../domain/media/media-port.ts';

/** The MediaStore over the `media_files` table (bytea), shared by every api process. */
export function createPostgresMediaStore(db: Db): MediaStore {
  return {
    async put(files: MediaFile[]) {
      if (files.length === 0) return;
      await db('media_files')
        .insert(
          files.map((f) => ({ key: f.key, content_type: f.contentType, body: f.body, etag: f.etag, width: f.width, height: f.height })),
        )
        .onConflict('key')
        .ignore();
    },
    async get(key: string) {
      const row = await db('media_files').where({ key }).first('key', 'content_type', 'body', 'etag', 'width', 'height');
      if (!row) return null;
      return { key: row.key, contentType: row.content_type, body: row.body, etag: row.etag, width: row.width, height: row.height };
    },
  };
}
