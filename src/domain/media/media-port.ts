/**
 * The MediaStore port: where logos, preview images and card images live, so that every api
 * process serves the same files. Implemented over PostgreSQL (src/media/postgres-store.ts);
 * `src/services.ts` builds it.
 */

/** One stored file. Its key is its path under `/media/`, named by a hash of its content or inputs. */
export interface MediaFile {
  /** e.g. `logos/3f2a…/256.png`; served at `/media/{key}`. */
  key: string;
  contentType: string;
  body: Buffer;
  /** Strong ETag value (no quotes): a hash of the body. */
  etag: string;
  width: number;
  height: number;
}

export interface MediaStore {
  /** Stores the files; a key already stored is kept as it is (a key names its content). */
  put(files: MediaFile[]): Promise<void>;
  /** The file with this key, or null. */
  get(key: string): Promise<MediaFile | null>;
}
