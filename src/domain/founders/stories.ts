import type { Db } from '../../db/knex.ts';
import { unprocessable } from '../../errors/errors.ts';
import { getOwnedListing, type ListingRow } from '../listings/listings.ts';
import { profileFacts } from './profiles.ts';
import { profileMissing, storyCounts, storyTextMissing, type MissingItem } from './publish-rules.ts';
import { STORY_SECTIONS, storedText, toCurrentSections, type StorySection, type StorySectionsInput } from './story-sections.ts';
import { founderUrls } from './urls.ts';

export type StorySections = Record<StorySection, string | null>;

interface StoryRow extends StorySections {
  listing_id: number;
  title: string | null;
  published_at: Date | null;
  updated_at: Date | null;
}

export type StoryInput = StorySectionsInput & { title?: string };

/** The owner's view of a listing's story (what set_founder_story and get_founder_story return). */
export interface StoryView {
  listing_id: number;
  title: string | null;
  sections: StorySections;
  word_count: number;
  section_count: number;
  url: string;
  published_at: string | null;
  shown_on_listing: boolean;
  /** Whether anyone can read the public page now: published and the listing is live. */
  visible: boolean;
  status: 'published' | 'draft';
  missing: MissingItem[];
  updated_at: string | null;
}

const STORY_COLUMNS = ['listing_id', 'title', ...STORY_SECTIONS, 'published_at', 'updated_at'];

const emptyStory = (listingId: number): StoryRow => ({
  listing_id: listingId,
  title: null,
  ...(Object.fromEntries(STORY_SECTIONS.map((s) => [s, null])) as StorySections),
  published_at: null,
  updated_at: null,
});

const sectionsOf = (row: StoryRow) => Object.fromEntries(STORY_SECTIONS.map((s) => [s, row[s]])) as StorySections;

/** The listing shows its story on paid plans or when the story section was bought for it. */
const listingShowsStory = (listing: ListingRow) => listing.plan === 'paid' || listing.unlocked_sections.includes('story');

/**
 * Applies the sent fields (older section names mapped, empty strings clear) and publishes the
 * story the first time every rule passes. A published story stays published — its public URL
 * keeps working — so an edit that would take it below the word or section minimum is refused
 * (422 story_below_minimum) rather than leaving a stub on the public page.
 */
export async function setFounderStory(db: Db, baseUrl: string, ownerId: number, listingId: number, input: StoryInput): Promise<StoryView> {
  const { title, ...sectionInput } = input;
  const changes: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(toCurrentSections(sectionInput))) changes[name] = storedText(value);
  if (title !== undefined) changes.title = storedText(title);
  return db.transaction(async (trx) => {
    const listing = await getOwnedListing(trx, ownerId, listingId);
    await trx('founder_stories').insert({ listing_id: listingId }).onConflict('listing_id').ignore();
    const current: StoryRow = await trx('founder_stories').where({ listing_id: listingId }).forUpdate().first(STORY_COLUMNS);
    const next: StoryRow = { ...current, ...changes };
    const counts = storyCounts(sectionsOf(next));
    const textMissing = storyTextMissing(counts, listingId, baseUrl);
    if (current.published_at && textMissing.length) {
      throw unprocessable(
        'story_below_minimum',
        `The story is published; after this edit it would have ${counts.words} words in ${counts.sections} sections, below the minimum. ${textMissing.map((m) => m.reason).join(' ')}`,
      );
    }
    const missing = current.published_at ? [] : [...profileMissing(await profileFacts(trx, ownerId), baseUrl), ...textMissing];
    const publish = !current.published_at && missing.length === 0;
    const [saved]: StoryRow[] = await trx('founder_stories')
      .where({ listing_id: listingId })
      .update({ ...changes, ...(publish ? { published_at: trx.fn.now() } : {}), updated_at: trx.fn.now() })
      .returning(STORY_COLUMNS);
    return toStoryView(saved!, listing, missing, baseUrl);
  });
}

/** The owner's story of one listing; a listing without a story yet gives an empty draft. */
export async function getFounderStory(db: Db, baseUrl: string, ownerId: number, listingId: number): Promise<StoryView> {
  const listing = await getOwnedListing(db, ownerId, listingId);
  const row: StoryRow = (await db('founder_stories').where({ listing_id: listingId }).first(STORY_COLUMNS)) ?? emptyStory(listingId);
  if (row.published_at) return toStoryView(row, listing, [], baseUrl);
  const missing = [
    ...profileMissing(await profileFacts(db, ownerId), baseUrl),
    ...storyTextMissing(storyCounts(sectionsOf(row)), listingId, baseUrl),
  ];
  // Rules can start passing without a story edit (e.g. the photo arrived): say how to publish.
  if (missing.length === 0) {
    missing.push({
      code: 'not_published',
      reason: 'Every rule passes now; save the story (set_founder_story, an empty body is enough) to publish it.',
      url: founderUrls.storyEditor(baseUrl, listingId),
      operation: 'set_founder_story',
    });
  }
  return toStoryView(row, listing, missing, baseUrl);
}

function toStoryView(row: StoryRow, listing: ListingRow, missing: MissingItem[], baseUrl: string): StoryView {
  const sections = sectionsOf(row);
  const counts = storyCounts(sections);
  const published = row.published_at !== null;
  return {
    listing_id: row.listing_id,
    title: row.title,
    sections,
    word_count: counts.words,
    section_count: counts.sections,
    url: published ? founderUrls.storyPage(baseUrl, listing.slug) : founderUrls.storyEditor(baseUrl, listing.id),
    published_at: row.published_at?.toISOString() ?? null,
    shown_on_listing: published && listingShowsStory(listing),
    visible: published && listing.status === 'live',
    status: published ? 'published' : 'draft',
    missing,
    updated_at: row.updated_at?.toISOString() ?? null,
  };
}
