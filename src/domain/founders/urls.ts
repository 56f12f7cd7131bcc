/**
 * Where founder content lives on the web. One place, so the operations' `url`/`missing` links,
 * the web pages and the media route agree. Built on config.baseUrl; with '' as base they are
 * site-relative paths (what the public page data uses).
 */
export const founderUrls = {
  /** Public story page of a listing (rendered by the web layer). */
  storyPage: (baseUrl: string, listingSlug: string) => `${baseUrl}/stories/${encodeURIComponent(listingSlug)}`,
  /** The owner's story editor of a listing. */
  storyEditor: (baseUrl: string, listingId: number) => `${baseUrl}/account/listings/${listingId}/story`,
  /** The owner's founder profile page: display name, bio, links, photo upload, interview. */
  profileEditor: (baseUrl: string) => `${baseUrl}/account/founder-profile`,
  /** Public founder page. */
  founderPage: (baseUrl: string, userId: number) => `${baseUrl}/founders/${userId}`,
  /** Public photo URL; `v` changes with the photo, so caches may keep one version for long. */
  photo: (baseUrl: string, userId: number, etag: string) => `${baseUrl}/media/founders/${userId}/photo.webp?v=${etag}`,
};
