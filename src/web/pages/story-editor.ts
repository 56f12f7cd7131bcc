import type { Context } from 'koa';
import type { StoryView } from '../../domain/founders/stories.ts';
import { notFound } from '../../errors/errors.ts';
import { getFounderStoryOp, setFounderStoryOp } from '../../operations/founder-story.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { countWords, RULES, SECTION_HEADINGS, STORY_SECTIONS } from '../../operations/read-models/founders.ts';
import { parseId } from '../../operations/schemas.ts';
import { paths } from '../../lib/paths.ts';
import { errorSummary, field, postForm, time } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { missingList } from '../content.ts';
import { formBody, formString, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { listingStatusPhrase, ownerPaths } from '../next-steps.ts';
import { refusal, textArea } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const FIELDS = ['title', ...STORY_SECTIONS] as const;

const NOTICES: Record<string, string> = {
  published: 'Your story is saved and published.',
  draft: 'Your story is saved as a draft. Below is what it still needs to publish.',
};

interface EditorView {
  status: number;
  errors?: FieldMessages;
  values?: Record<string, string>;
}

/** The owner's story editor of one listing: the current sections, the status and what is missing. */
export const storyEditorPages: PageRoutes = (router, services) => {
  router.get('/account/listings/{listing_id}/story', requireUser(services), async function showStoryEditor(ctx) {
    await editorPage(ctx, services, { status: 200 });
  });

  router.post('/account/listings/{listing_id}/story', requireUser(services), async function saveStory(ctx) {
    const listingId = listingIdOf(ctx);
    const body = formBody(ctx);
    // Every field is on the form, so an emptied section is cleared, as in set_founder_story.
    const values = Object.fromEntries(FIELDS.map((name) => [name, formString(body, name)]));
    let saved: StoryView;
    try {
      saved = await invokeForPage(ctx, services, setFounderStoryOp, { listing_id: listingId, ...values });
    } catch (err) {
      return editorPage(ctx, services, { ...refusal(err), values });
    }
    ctx.status = 303;
    ctx.redirect(`${paths.storyEditor(listingId)}?notice=${saved.status}`);
  });
};

/** The listing id of the path; anything but a positive 32-bit integer is a page that does not exist. */
function listingIdOf(ctx: Context): number {
  const id = parseId(ctx.params.listing_id);
  if (!id) throw notFound('The listing');
  return id;
}

async function editorPage(ctx: Context, services: WebServices, view: EditorView) {
  const listingId = listingIdOf(ctx);
  // Another owner's listing is "not found", the same as through the API.
  const listing = await invokeForPage(ctx, services, getMyListingOp, { listing_id: listingId });
  const story = await invokeForPage(ctx, services, getFounderStoryOp, { listing_id: listingId });
  const token = await csrfToken(ctx, services);
  const notice = typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined;
  const value = (name: (typeof FIELDS)[number]) => view.values?.[name] ?? (name === 'title' ? story.title : story.sections[name]) ?? '';
  await renderPage(ctx, services, {
    title: `Founder story: ${listing.name}`,
    status: view.status,
    notice: view.status === 200 ? notice : undefined,
    main: html`<p><a href="${ownerPaths.home(listing.id)}">Back to ${listing.name}</a></p>
${storyStatus(story, listingStatusPhrase(listing.status))}
${errorSummary(view.errors)}
${postForm(
  paths.storyEditor(listingId),
  token,
  html`<p class="hint">Tell the story in your own words, in plain text; a blank line starts a new paragraph. It publishes once it has
at least ${RULES.storyMinWords} words over at least ${RULES.storyMinSections} sections and your founder profile is complete.</p>
${field({ name: 'title', label: 'Title', value: value('title'), error: view.errors?.title, maxlength: 120 })}
${STORY_SECTIONS.map((name) =>
  textArea({
    name,
    label: SECTION_HEADINGS[name],
    value: value(name),
    error: view.errors?.[name],
    hint: `${countWords(story.sections[name])} words saved.`,
    rows: 8,
    maxlength: 10_000,
  }),
)}
<button type="submit">Save story</button>`,
)}`,
  });
}

function storyStatus(story: StoryView, listingStatus: string) {
  const counts = html`<p>${story.word_count} words in ${story.section_count} ${story.section_count === 1 ? 'section' : 'sections'}.</p>`;
  if (story.status === 'published' && !story.visible) {
    return html`<p class="status" data-status="published" data-visible="false">Published ${time(story.published_at)}, but not public yet:
its page opens for readers when your listing goes live (it is ${listingStatus} now). Until then only you see it here.</p>${counts}`;
  }
  if (story.status === 'published') {
    const path = new URL(story.url).pathname;
    return html`<p class="status" data-status="published" data-visible="true">Published ${time(story.published_at)}: <a href="${path}">read it on its public page</a>.
${story.shown_on_listing ? 'It shows on your listing page too.' : 'It shows on your listing page too once the listing is paid or its story section is unlocked.'}</p>${counts}`;
  }
  return html`<p class="status" data-status="draft">Draft: not published yet.</p>${counts}
${missingList(story.missing, 'What it takes to publish')}`;
}
