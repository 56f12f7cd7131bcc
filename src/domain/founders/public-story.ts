import type { Db } from '../../db/knex.ts';
import { profileMissing, storyCounts } from './publish-rules.ts';
import { profileFacts } from './profiles.ts';
import { SECTION_HEADINGS, STORY_SECTIONS, type StorySection } from './story-sections.ts';
import { founderUrls } from './urls.ts';

/** What the public story page shows: plain text split into paragraphs; escaping is the page's job. */
export interface PublicStory {
  title: string;
  sections: { name: StorySection; heading: string; paragraphs: string[] }[];
  word_count: number;
  published_at: string;
  updated_at: string;
  /** Whether the listing page shows the story too (paid plan or story section unlocked). */
  shown_on_listing: boolean;
  listing: { id: number; name: string; slug: string; url: string; headline: string | null; logo_url: string | null; status: string };
  founder: { user_id: number; display_name: string | null; photo_path: string | null; page_path: string | null } | null;
}

/** Paragraphs are separated by blank lines; single line breaks stay inside a paragraph. */
export function paragraphs(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * The published story of the listing with this slug, or null: not published, no such listing, or
 * the listing is not live (a draft or scheduled listing is not public, so neither is its story;
 * an unlisted one was taken off the directory, so its story goes too).
 */
export async function publicStory(db: Db, slug: string): Promise<PublicStory | null> {
  const row = await db('founder_stories as s')
    .join('listings as l', 'l.id', 's.listing_id')
    .where('l.slug', slug)
    .where('l.status', 'live')
    .whereNotNull('s.published_at')
    .first(
      's.*',
      'l.name as listing_name',
      'l.slug as listing_slug',
      'l.url as listing_url',
      'l.headline as listing_headline',
      'l.logo_url as listing_logo_url',
      'l.status as listing_status',
      'l.plan as listing_plan',
      'l.unlocked_sections as listing_unlocked',
      'l.owner_id',
    );
  if (!row) return null;
  const sections = STORY_SECTIONS.filter((name) => row[name]).map((name) => ({
    name,
    heading: SECTION_HEADINGS[name],
    paragraphs: paragraphs(row[name]),
  }));
  return {
    title: row.title ?? row.listing_name,
    sections,
    word_count: storyCounts(row).words,
    published_at: row.published_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    shown_on_listing: row.listing_plan === 'paid' || row.listing_unlocked.includes('story'),
    listing: {
      id: row.listing_id,
      name: row.listing_name,
      slug: row.listing_slug,
      url: row.listing_url,
      headline: row.listing_headline,
      logo_url: row.listing_logo_url,
      status: row.listing_status,
    },
    founder: row.owner_id === null ? null : await storyFounder(db, row.owner_id),
  };
}

async function storyFounder(db: Db, userId: number): Promise<NonNullable<PublicStory['founder']>> {
  const facts = await profileFacts(db, userId);
  const photo = facts?.has_photo ? await db('founder_photos').where({ user_id: userId }).first('etag') : null;
  return {
    user_id: userId,
    display_name: facts?.display_name ?? null,
    photo_path: photo ? founderUrls.photo('', userId, photo.etag) : null,
    // The founder page exists only for complete profiles (see publicFounder).
    page_path: facts && profileMissing(facts, '').length === 0 ? founderUrls.founderPage('', userId) : null,
  };
}
