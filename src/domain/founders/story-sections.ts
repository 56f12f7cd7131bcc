import { validationFailed, type FieldError } from '../../errors/errors.ts';

/** Current section names of a founder story, in reading order. */
export const STORY_SECTIONS = ['how_started', 'problem', 'what_built', 'hard_parts', 'milestones', 'whats_next'] as const;
export type StorySection = (typeof STORY_SECTIONS)[number];

/** Older section names, still accepted from callers written against them, and mapped to today's sections. */
export const LEGACY_SECTIONS = {
  story: 'how_started',
  why_started: 'problem',
  journey: 'what_built',
  challenges: 'hard_parts',
  achievements: 'milestones',
  lessons: 'whats_next',
} as const satisfies Record<string, StorySection>;
export type LegacySection = keyof typeof LEGACY_SECTIONS;

/** Human headings of the sections, for pages and messages. */
export const SECTION_HEADINGS: Record<StorySection, string> = {
  how_started: 'How it started',
  problem: 'The problem',
  what_built: 'What we built',
  hard_parts: 'The hard parts',
  milestones: 'Milestones',
  whats_next: "What's next",
};

export type StorySectionsInput = Partial<Record<StorySection | LegacySection, string>>;

/**
 * Maps older names onto current ones. Only keys that were sent appear in the result; an empty
 * string stays empty (it clears the section). Sending an older name together with its current
 * name is ambiguous, so it is refused with both paths named.
 */
export function toCurrentSections(input: StorySectionsInput): Partial<Record<StorySection, string>> {
  const errors: FieldError[] = [];
  const result: Partial<Record<StorySection, string>> = {};
  for (const section of STORY_SECTIONS) {
    if (input[section] !== undefined) result[section] = input[section];
  }
  for (const [legacy, current] of Object.entries(LEGACY_SECTIONS) as [LegacySection, StorySection][]) {
    const value = input[legacy];
    if (value === undefined) continue;
    if (input[current] !== undefined) {
      const message = `"${legacy}" is the older name of "${current}"; send only one of them`;
      errors.push({ path: legacy, message }, { path: current, message });
      continue;
    }
    result[current] = value;
  }
  if (errors.length) throw validationFailed(errors, 'An older story section name was sent together with its current name.');
  return result;
}

// Made at the first count: building it loads ICU's word-break data (about 20 ms of CPU), which
// every process that loads the app (each test file is one) would otherwise pay at startup.
let segmenter: Intl.Segmenter | undefined;

/** Words as a reader counts them (also for text without spaces, such as Chinese or Japanese). */
export function countWords(text: string | null | undefined): number {
  if (!text) return 0;
  segmenter ??= new Intl.Segmenter('en', { granularity: 'word' });
  let words = 0;
  for (const segment of segmenter.segment(text)) if (segment.isWordLike) words++;
  return words;
}

/** Stored text: trailing/leading blank space dropped; an empty result clears (null). */
export function storedText(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}
