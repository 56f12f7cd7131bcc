export * from './types.ts';
export { CATEGORY_SLUGS } from './categories.ts';
export type { CategorySlug } from './categories.ts';
export { crawlSite } from './crawl-site.ts';
export { extractDraft } from './extract-draft.ts';
export { assertCrawlableUrl } from './crawlable-url.ts';
export { SOCIAL_PLATFORMS } from './extract-socials.ts';
export type { SocialPlatform } from './extract-socials.ts';
