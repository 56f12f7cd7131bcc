import type { Db } from '../../db/knex.ts';
import { interviewAnswers, type InterviewAnswerView } from './interview.ts';
import { profileMissing, type MissingItem, type ProfileFacts } from './publish-rules.ts';
import { storedText } from './story-sections.ts';
import { founderUrls } from './urls.ts';

interface ProfileRow {
  user_id: number;
  display_name: string | null;
  bio: string | null;
  links: string[];
  created_at: Date;
  updated_at: Date;
  photo_etag: string | null;
}

/** Changes of update_founder_profile; absent keys stay, empty strings clear, links replace all. */
export interface ProfileChanges {
  display_name?: string;
  bio?: string;
  links?: string[];
}

/** The owner's view of their founder profile. */
export interface FounderProfileView {
  user_id: number;
  display_name: string | null;
  bio: string | null;
  links: string[];
  photo_url: string | null;
  complete: boolean;
  missing: MissingItem[];
  interview: InterviewAnswerView[];
  public_url: string;
  updated_at: string | null;
}

async function profileRow(db: Db, userId: number): Promise<ProfileRow | null> {
  const row = await db('founder_profiles as p')
    .leftJoin('founder_photos as ph', 'ph.user_id', 'p.user_id')
    .where('p.user_id', userId)
    .first('p.user_id', 'p.display_name', 'p.bio', 'p.links', 'p.created_at', 'p.updated_at', 'ph.etag as photo_etag');
  return row ?? null;
}

const factsOf = (row: ProfileRow | null): ProfileFacts | null =>
  row && { display_name: row.display_name, bio: row.bio, links: row.links, has_photo: row.photo_etag !== null };

/** What the publish rules need: the profile's facts, or null when the user has none. */
export async function profileFacts(db: Db, userId: number): Promise<ProfileFacts | null> {
  return factsOf(await profileRow(db, userId));
}

/** The owner's profile view; interview answers are those of the given site's questions. */
export async function founderProfileView(db: Db, baseUrl: string, userId: number, siteId: number): Promise<FounderProfileView> {
  const [row, interview] = await Promise.all([profileRow(db, userId), interviewAnswers(db, userId, siteId)]);
  const missing = profileMissing(factsOf(row), baseUrl);
  return {
    user_id: userId,
    display_name: row?.display_name ?? null,
    bio: row?.bio ?? null,
    links: row?.links ?? [],
    photo_url: row?.photo_etag ? founderUrls.photo(baseUrl, userId, row.photo_etag) : null,
    complete: missing.length === 0,
    missing,
    interview,
    public_url: founderUrls.founderPage(baseUrl, userId),
    updated_at: row ? row.updated_at.toISOString() : null,
  };
}

/** Creates the profile on first use; only the fields sent change. */
export async function updateFounderProfile(db: Db, userId: number, changes: ProfileChanges): Promise<void> {
  const values: Record<string, unknown> = {};
  if (changes.display_name !== undefined) values.display_name = storedText(changes.display_name);
  if (changes.bio !== undefined) values.bio = storedText(changes.bio);
  if (changes.links !== undefined) values.links = JSON.stringify(changes.links);
  await ensureFounderProfile(db, userId);
  await db('founder_profiles')
    .where({ user_id: userId })
    .update({ ...values, updated_at: db.fn.now() });
}

/** An empty profile row, so a photo or answer can belong to a profile that has nothing else yet. */
export async function ensureFounderProfile(db: Db, userId: number): Promise<void> {
  await db('founder_profiles').insert({ user_id: userId }).onConflict('user_id').ignore();
}

/** What a public founder page shows: plain data, escaping is the page's job. Paths are site-relative. */
export interface PublicFounder {
  user_id: number;
  display_name: string;
  bio: string | null;
  links: string[];
  photo_path: string | null;
  interview: InterviewAnswerView[];
  stories: { title: string; listing_name: string; listing_slug: string; path: string; published_at: string }[];
  listings: { name: string; slug: string; url: string; headline: string | null }[];
}

/**
 * A founder's public page data, or null when there is nothing public: the page exists once the
 * profile is complete (display name, photo, bio, link), the same bar a free listing needs.
 * Interview answers are those of one site's active questions when `siteId` is given.
 */
export async function publicFounder(db: Db, userId: number, siteId?: number): Promise<PublicFounder | null> {
  const row = await profileRow(db, userId);
  if (!row || profileMissing(factsOf(row), '').length > 0) return null;
  const [interview, stories, listings] = await Promise.all([
    interviewAnswers(db, userId, siteId),
    db('founder_stories as s')
      .join('listings as l', 'l.id', 's.listing_id')
      .where('l.owner_id', userId)
      .where('l.status', 'live') // the story page of a listing that is not live is a 404
      .whereNotNull('s.published_at')
      .orderBy('s.published_at', 'desc')
      .select('s.title', 'l.name as listing_name', 'l.slug as listing_slug', 's.published_at'),
    db('listings').where({ owner_id: userId, status: 'live' }).orderBy('id').select('name', 'slug', 'url', 'headline'),
  ]);
  return {
    user_id: userId,
    display_name: row.display_name!,
    bio: row.bio,
    links: row.links,
    photo_path: row.photo_etag ? founderUrls.photo('', userId, row.photo_etag) : null,
    interview,
    stories: stories.map((s: { title: string | null; listing_name: string; listing_slug: string; published_at: Date }) => ({
      title: s.title ?? s.listing_name,
      listing_name: s.listing_name,
      listing_slug: s.listing_slug,
      path: founderUrls.storyPage('', s.listing_slug),
      published_at: s.published_at.toISOString(),
    })),
    listings,
  };
}
