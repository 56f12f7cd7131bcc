import { absoluteUrl, paths } from '../../lib/paths.ts';

/**
 * Where founder content lives on the web. One place, so the operations' `url`/`missing` links,
 * the web pages and the media route agree. Built on config.baseUrl; with '' as base they are
 * site-relative paths (what the public page data uses).
 */
export const founderUrls = {
  /** Public story page of a listing (rendered by the web layer). */
  storyPage: (baseUrl: string, listingSlug: string) => absoluteUrl(baseUrl, paths.story(listingSlug)),
  /** The owner's story editor of a listing. */
  storyEditor: (baseUrl: string, listingId: number) => absoluteUrl(baseUrl, paths.storyEditor(listingId)),
  /** The owner's founder profile page: display name, bio, links, photo upload, interview. */
  profileEditor: (baseUrl: string) => absoluteUrl(baseUrl, paths.founderProfile),
  /** Public founder page. */
  founderPage: (baseUrl: string, userId: number) => absoluteUrl(baseUrl, paths.founder(userId)),
  /** Public photo URL; `v` changes with the photo, so caches may keep one version for long. */
  photo: (baseUrl: string, userId: number, etag: string) => absoluteUrl(baseUrl, paths.founderPhoto(userId, etag)),
};
