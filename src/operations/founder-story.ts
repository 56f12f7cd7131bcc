import { z } from 'zod';
import { getFounderStory, setFounderStory } from '../domain/founders/stories.ts';
import {
  LEGACY_SECTIONS,
  SECTION_HEADINGS,
  STORY_SECTIONS,
  type LegacySection,
  type StorySection,
} from '../domain/founders/story-sections.ts';
import { RULES } from '../domain/founders/publish-rules.ts';
import { MissingItem, OneLine, PlainText } from './founder-schemas.ts';
import { callerId, defineOperation } from './operation.ts';
import { Id } from './schemas.ts';

const SECTION_MAX = 10_000;
const Section = PlainText(SECTION_MAX);

const currentSectionFields = Object.fromEntries(
  STORY_SECTIONS.map((name) => [name, Section.optional().describe(`${SECTION_HEADINGS[name]}; an empty string clears it`)]),
) as Record<StorySection, z.ZodOptional<typeof Section>>;

const legacySectionFields = Object.fromEntries(
  Object.entries(LEGACY_SECTIONS).map(([old, current]) => [
    old,
    Section.optional().meta({ deprecated: true }).describe(`Older name of \`${current}\`; do not send both`),
  ]),
) as Record<LegacySection, z.ZodOptional<typeof Section>>;

const Story = z.object({
  listing_id: Id,
  title: z.string().nullable(),
  sections: z.object(
    Object.fromEntries(STORY_SECTIONS.map((n) => [n, z.string().nullable()])) as Record<StorySection, z.ZodNullable<z.ZodString>>,
  ),
  word_count: z.int().describe('Words over all sections'),
  section_count: z.int().describe('Sections with text'),
  url: z.string().describe('The public story page once published, otherwise the story editor'),
  published_at: z.string().nullable(),
  shown_on_listing: z.boolean().describe('Published and shown on the listing page (paid plan or story section unlocked)'),
  visible: z
    .boolean()
    .describe('Whether the public story page can be read now: published and the listing is live (until then it is a 404)'),
  status: z.enum(['published', 'draft']),
  missing: z.array(MissingItem).describe('Each unmet publishing rule; empty once published'),
  updated_at: z.string().nullable(),
});

const RULES_TEXT =
  `Publishes the first time every rule passes: at least ${RULES.storyMinWords} words over at least ${RULES.storyMinSections} sections, ` +
  `and a complete founder profile (display name, photo, bio of at least ${RULES.bioMinWords} words, a link). ` +
  'A published story stays published; an edit that would take it below the word or section minimum is refused (422 story_below_minimum).';

export const setFounderStoryOp = defineOperation({
  name: 'set_founder_story',
  summary: "Write your listing's founder story",
  description: `Only the fields sent change; an empty string clears a field. Older section names (${Object.entries(LEGACY_SECTIONS)
    .map(([o, c]) => `${o}→${c}`)
    .join(', ')}) are accepted; sending an older name with its current name is a 400. ${RULES_TEXT}`,
  method: 'PUT',
  path: '/me/listings/{listing_id}/story',
  scope: 'listings:write',
  idempotent: true,
  errorCodes: ['story_below_minimum'],
  readOnly: false,
  tags: ['founder'],
  input: z
    .object({
      listing_id: Id,
      title: OneLine(120).optional().describe('Story title; an empty string clears it'),
      ...currentSectionFields,
      ...legacySectionFields,
    })
    .strict()
    // An older name together with its current one is a 400 (toCurrentSections): the schema says so too.
    .meta({ not: { anyOf: Object.entries(LEGACY_SECTIONS).map(([old, current]) => ({ required: [old, current] })) } }),
  output: Story,
  handler: ({ listing_id, ...fields }, ctx) => setFounderStory(ctx.db, ctx.config.baseUrl, callerId(ctx), listing_id, fields),
});

export const getFounderStoryOp = defineOperation({
  name: 'get_founder_story',
  summary: "Your listing's founder story and what keeps it from publishing",
  method: 'GET',
  path: '/me/listings/{listing_id}/story',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['founder'],
  input: z.object({ listing_id: Id }),
  output: Story,
  handler: ({ listing_id }, ctx) => getFounderStory(ctx.db, ctx.config.baseUrl, callerId(ctx), listing_id),
});

export const founderStoryOperations = [setFounderStoryOp, getFounderStoryOp];
