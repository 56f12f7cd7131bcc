import type { DraftStatus } from '../domain/drafts/drafts.ts';
import { paths } from '../paths.ts';
import { postForm } from './components.ts';
import { html, type SafeHtml } from './html.ts';

/**
 * What moves a draft or a listing on, by status: the one link (or button) the owner's listings
 * page shows next to it. A new status gets one entry here.
 */
export interface NextStep {
  /** Where the owner stands, in words. */
  state: string;
  /** The action's label and target; `post` targets are buttons (they change something). */
  action: { label: string; href: string; post?: Record<string, string> } | null;
}

interface DraftLike {
  id: number;
  url: string;
  status: DraftStatus;
  failure: { code: string; reason: string } | null;
  listing_id: number | null;
}

interface ListingLike {
  id: number;
  slug: string;
  status: string;
}

/** The owner's page of one draft (progress, review and submit). */
export const draftPage = (id: number) => `/account/drafts/${id}`;

/** Where the form creating a draft posts (also the retry of a failed draft): the page itself, so errors show there. */
export const CREATE_DRAFT_PATH = '/account/listings';

const DRAFT_STEPS: Record<DraftStatus, (d: DraftLike) => NextStep> = {
  crawling: (d) => ({ state: 'Reading the website…', action: { label: 'Follow the progress', href: draftPage(d.id) } }),
  drafting: (d) => ({ state: 'Writing the draft…', action: { label: 'Follow the progress', href: draftPage(d.id) } }),
  ready: (d) => ({ state: 'Draft ready', action: { label: 'Review and submit', href: draftPage(d.id) } }),
  failed: (d) => ({
    state: `Failed: ${d.failure?.reason ?? 'the website could not be read'}`,
    action: { label: 'Try again', href: CREATE_DRAFT_PATH, post: { url: d.url } },
  }),
  submitted: (d) => ({ state: `Submitted as listing ${d.listing_id}`, action: null }),
};

/** The owner's launch panel of one listing (status, week, badge check, snippets). */
export const launchPanel = (id: number) => `/account/listings/${id}`;

const LISTING_STEPS: Record<string, (l: ListingLike) => NextStep> = {
  draft: (l) => ({ state: 'Listing draft', action: { label: 'Choose how to launch', href: launchPanel(l.id) } }),
  awaiting_profile: () => ({
    state: 'Waiting for your founder profile',
    action: { label: 'Complete your founder profile', href: paths.founderProfile },
  }),
  awaiting_badge: (l) => ({
    state: 'Waiting for our badge on your site',
    action: { label: 'Add the badge and check', href: launchPanel(l.id) },
  }),
  scheduled: (l) => ({
    state: 'Scheduled for its launch week',
    action: { label: 'See the launch week and place', href: launchPanel(l.id) },
  }),
  live: (l) => ({ state: 'Live', action: { label: 'See the public page', href: `/listings/${l.slug}` } }),
};

export const draftNextStep = (draft: DraftLike): NextStep => DRAFT_STEPS[draft.status](draft);

/** Statuses without an entry yet say so and link the founder story, which every listing has. */
export function listingNextStep(listing: ListingLike): NextStep {
  const step = LISTING_STEPS[listing.status];
  if (step) return step(listing);
  return {
    state: listing.status.replace(/_/g, ' '),
    action: { label: 'Write the founder story', href: paths.storyEditor(listing.id) },
  };
}

/** The step's link, or a small form when the step changes something (a retry creates a draft). */
export function stepAction(step: NextStep, token: string): SafeHtml {
  const action = step.action;
  if (!action) return html`<span class="muted">—</span>`;
  if (!action.post) return html`<a href="${action.href}">${action.label}</a>`;
  const hidden = Object.entries(action.post).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return postForm(action.href, token, html`${hidden}<button class="link" type="submit">${action.label}</button>`, 'inline');
}
