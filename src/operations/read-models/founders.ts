import { loadFounderPhoto } from '../../domain/founders/photos.ts';
import { publicFounder, type PublicFounder } from '../../domain/founders/profiles.ts';
import { publicStory, type PublicStory } from '../../domain/founders/public-story.ts';
import type { OperationContext } from '../operation.ts';

/**
 * What the founder pages read beyond the founder operations: the public founder and story pages
 * and the stored photo. The rules those pages and forms show (word minimums, section headings,
 * photo limits) are the domain's, named here so the web takes them from beside the operations.
 */

export { PHOTO_LIMITS } from '../../domain/founders/photos.ts';
export { paragraphs } from '../../domain/founders/public-story.ts';
export { RULES } from '../../domain/founders/publish-rules.ts';
export { countWords, SECTION_HEADINGS, STORY_SECTIONS } from '../../domain/founders/story-sections.ts';

/** The public founder page of this site, or null (no such founder, or the profile is not complete). */
export function founderPage(c: Pick<OperationContext, 'db' | 'site'>, userId: number): Promise<PublicFounder | null> {
  return publicFounder(c.db, userId, c.site.id);
}

/** The public page of a published story of a live listing, or null. */
export function storyPage(c: Pick<OperationContext, 'db'>, listingSlug: string): Promise<PublicStory | null> {
  return publicStory(c.db, listingSlug);
}

/** A founder's stored photo (WebP) with its ETag, or null. */
export function founderPhotoFile(c: Pick<OperationContext, 'db'>, userId: number) {
  return loadFounderPhoto(c.db, userId);
}
