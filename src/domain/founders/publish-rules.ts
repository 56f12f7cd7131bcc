import { countWords, STORY_SECTIONS, type StorySection } from './story-sections.ts';
import { founderUrls } from './urls.ts';

/** The numbers behind "complete founder profile" (a free launch needs one) and "story publishes". */
export const RULES = {
  bioMinWords: 20,
  minLinks: 1,
  storyMinWords: 300,
  storyMinSections: 3,
} as const;

/** One unmet rule: what is wrong, the page that fixes it, and the operation an agent would call. */
export interface MissingItem {
  code: string;
  reason: string;
  url: string;
  operation: string;
}

/** What the rules need to know about a founder profile (null: the user never made one). */
export interface ProfileFacts {
  display_name: string | null;
  bio: string | null;
  links: string[];
  has_photo: boolean;
}

/** Unmet rules of a complete founder profile (display name, photo, bio ≥ 20 words, a link). */
export function profileMissing(profile: ProfileFacts | null, baseUrl: string): MissingItem[] {
  const url = founderUrls.profileEditor(baseUrl);
  const item = (code: string, reason: string, operation = 'update_founder_profile') => ({ code, reason, url, operation });
  if (!profile) {
    return [
      item(
        'founder_profile_missing',
        `You have no founder profile yet: add a display name, a photo, a bio of at least ${RULES.bioMinWords} words and at least ${RULES.minLinks} link.`,
      ),
    ];
  }
  const missing: MissingItem[] = [];
  if (!profile.display_name) missing.push(item('display_name_missing', 'Add a display name to your founder profile.'));
  if (!profile.has_photo)
    missing.push(item('photo_missing', 'Upload a photo of yourself to your founder profile.', 'upload_founder_photo'));
  const bioWords = countWords(profile.bio);
  if (bioWords < RULES.bioMinWords) {
    missing.push(item('bio_too_short', `Your bio has ${bioWords} words; write at least ${RULES.bioMinWords}.`));
  }
  if (profile.links.length < RULES.minLinks) {
    missing.push(item('link_missing', 'Add at least one https link (your site or a social profile) to your founder profile.'));
  }
  return missing;
}

/** The story's own numbers: words over all current sections and non-empty sections. */
export function storyCounts(sections: Record<StorySection, string | null>): { words: number; sections: number } {
  let words = 0;
  let filled = 0;
  for (const name of STORY_SECTIONS) {
    const n = countWords(sections[name]);
    words += n;
    if (n > 0) filled++;
  }
  return { words, sections: filled };
}

/** Unmet rules of the story text itself (≥ 300 words over ≥ 3 sections). */
export function storyTextMissing(counts: { words: number; sections: number }, listingId: number, baseUrl: string): MissingItem[] {
  const url = founderUrls.storyEditor(baseUrl, listingId);
  const missing: MissingItem[] = [];
  if (counts.words < RULES.storyMinWords) {
    missing.push({
      code: 'story_too_few_words',
      reason: `The story has ${counts.words} words; it needs at least ${RULES.storyMinWords} in your own words.`,
      url,
      operation: 'set_founder_story',
    });
  }
  if (counts.sections < RULES.storyMinSections) {
    missing.push({
      code: 'story_too_few_sections',
      reason: `The story fills ${counts.sections} sections; write at least ${RULES.storyMinSections} of: ${STORY_SECTIONS.join(', ')}.`,
      url,
      operation: 'set_founder_story',
    });
  }
  return missing;
}
