import type { DraftStatus } from '../domain/drafts/drafts.ts';
import { dayText, weekText } from './week-words.ts';
import { paths } from '../lib/paths.ts';
import { postForm } from './components.ts';
import { html, type SafeHtml } from './html.ts';

/**
 * THE words of the owner pages for a draft's or a listing's status: where it stands (a sentence),
 * what happens next and the one action that moves it on. Every owner page (the listings table,
 * a listing's home, the draft review, the account overview, the story editor) says a status
 * through this module, so two pages never disagree on the next step. A new status gets one entry here.
 */
export interface NextStep {
  /** Where the owner stands, as a sentence. */
  state: string;
  /** What happens next, as a sentence (empty when nothing is pending). */
  next: string;
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
  plan?: 'free' | 'paid' | null;
  launch_week_start?: string | null;
  queue_position?: number | null;
  /** Why the site team unlisted it, when they did. */
  unlisted_reason?: string | null;
}

/** The owner's page of one draft (progress, review and submit). */
export const draftPage = (id: number) => `/account/drafts/${id}`;

/** Where the form creating a draft posts (also the retry of a failed draft): the page itself, so errors show there. */
export const CREATE_DRAFT_PATH = '/account/listings';

/** The owner's pages of one listing: its home and the pages it links to. */
export const ownerPaths = {
  home: (id: number) => `/account/listings/${id}`,
  launchPanel: (id: number) => `/account/listings/${id}/launch`,
  edit: (id: number) => `/account/listings/${id}/edit`,
  updates: (id: number) => `/account/listings/${id}/updates`,
  milestones: (id: number) => `/account/listings/${id}/milestones`,
  story: (id: number) => paths.storyEditor(id),
  promote: (id: number) => `/account/listings/${id}/promote`,
  orders: (id: number) => `/account/orders?listing=${id}`,
};

const DRAFT_STEPS: Record<DraftStatus, (d: DraftLike) => NextStep> = {
  crawling: (d) => ({
    state: 'We are reading your website.',
    next: 'Then we write the draft; this page follows the progress by itself.',
    action: { label: 'Follow the progress', href: draftPage(d.id) },
  }),
  drafting: (d) => ({
    state: 'We are writing your draft from your website.',
    next: 'It is ready for you to review in a moment.',
    action: { label: 'Follow the progress', href: draftPage(d.id) },
  }),
  ready: (d) => ({
    state: 'Your draft is ready for you to review.',
    next: 'Check each field, change what is wrong, then submit it as a listing.',
    action: { label: 'Review and submit', href: draftPage(d.id) },
  }),
  failed: (d) => ({
    state: `We could not draft from this website: ${d.failure?.reason ?? 'it could not be read'}`,
    next: 'Fix the website or try another address.',
    action: { label: 'Try again', href: CREATE_DRAFT_PATH, post: { url: d.url } },
  }),
  submitted: (d) => ({
    state: 'You submitted this draft; it is a listing now.',
    next: 'Choose how to launch it from the listing’s page.',
    action: d.listing_id ? { label: 'Open the listing', href: ownerPaths.home(d.listing_id) } : null,
  }),
};

/** "the 1st", "the 2nd"… launch of that week. */
export function placeText(position: number): string {
  const teen = position % 100 >= 11 && position % 100 <= 13;
  const suffix = teen ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[position % 10] ?? 'th');
  return `${position}${suffix} launch of that week`;
}

/** The Monday of the launch week as "Monday 21 Dec 2026". */
const mondayText = (monday: string) => `Monday ${dayText(monday)}`;

const LISTING_STEPS: Record<string, (l: ListingLike) => NextStep> = {
  draft: (l) => ({
    state: 'Your listing is submitted but not launched yet.',
    next: 'Choose how it launches: free, in the first week with room after the queue, or paid, now or in the week you pick.',
    action: { label: 'Choose how to launch', href: ownerPaths.launchPanel(l.id) },
  }),
  awaiting_profile: () => ({
    state: 'Your free launch waits for your founder profile.',
    next: 'Once your profile is complete and our badge is on your site, we schedule the launch in the first week with room.',
    action: { label: 'Complete your founder profile', href: paths.founderProfile },
  }),
  awaiting_badge: (l) => ({
    state: 'Your free launch waits for our badge on your website.',
    next: 'Put the badge on your home page and ask us to check; we schedule the launch as soon as we find it.',
    action: { label: 'Add the badge and check', href: ownerPaths.launchPanel(l.id) },
  }),
  scheduled: (l) => ({
    state: l.launch_week_start
      ? `Your listing is scheduled to launch in ${weekText(l.launch_week_start)}.`
      : 'Your listing is scheduled to launch.',
    next: l.launch_week_start
      ? `It goes live on ${mondayText(l.launch_week_start)} at 00:00 UTC, and people can vote for it all that week. Meanwhile, tell its story.`
      : 'It goes live at the start of its launch week. Meanwhile, tell its story.',
    action: { label: 'Write the founder story', href: ownerPaths.story(l.id) },
  }),
  live: (l) => ({
    state: 'Your listing is live on the site.',
    next: 'Keep your followers posted: each update reaches them by email and in their notifications.',
    action: { label: 'Post an update', href: ownerPaths.updates(l.id) },
  }),
  unlisted: (l) =>
    l.unlisted_reason
      ? {
          state: `The site team unlisted your listing: ${l.unlisted_reason}`,
          next: 'It no longer shows on the site. Reply to the mail we sent you if you think this is a mistake.',
          action: null,
        }
      : {
          state: 'Your listing is unlisted: it no longer shows on the site.',
          next: 'Put our badge back on your home page and ask us to check again.',
          action: { label: 'Add the badge and check', href: ownerPaths.launchPanel(l.id) },
        },
};

export const draftNextStep = (draft: DraftLike): NextStep => DRAFT_STEPS[draft.status](draft);

/** A status without an entry yet still reads as words (never its code) and links the listing's home. */
export function listingNextStep(listing: ListingLike): NextStep {
  const step = LISTING_STEPS[listing.status];
  if (step) return step(listing);
  return {
    state: `Your listing is ${listing.status.replace(/_/g, ' ')}.`,
    next: '',
    action: { label: 'Open the listing', href: ownerPaths.home(listing.id) },
  };
}

/** A short phrase of a listing's status, for inside a sentence ("it is … now"). */
export function listingStatusPhrase(status: string): string {
  const phrases: Record<string, string> = {
    draft: 'not launched yet',
    awaiting_profile: 'waiting for your founder profile',
    awaiting_badge: 'waiting for our badge on your site',
    scheduled: 'scheduled to launch',
    live: 'live',
    unlisted: 'unlisted',
  };
  return phrases[status] ?? status.replace(/_/g, ' ');
}

interface MissingLike {
  code: string;
  reason: string;
  url: string;
  operation: string;
}

/**
 * What a free launch still needs, for the owner pages: the badge item says where the snippet is
 * on this site (the API's text names get_badges) and links the launch panel, where "Check now" is.
 */
export function missingForPeople<M extends MissingLike>(listingId: number, badgeStatus: string, missing: M[]): M[] {
  return missing.map((m) =>
    m.code !== 'badge_missing'
      ? m
      : {
          ...m,
          url: ownerPaths.launchPanel(listingId),
          reason:
            badgeStatus === 'unchecked'
              ? 'Put our badge on your home page (the launch panel has the snippet), then ask us to check.'
              : m.reason,
        },
  );
}

/** The last badge check's result as a sentence. */
export function badgeStatusText(status: string): string {
  const words: Record<string, string> = {
    unchecked: 'We have not checked your site for the badge yet.',
    present: 'We found our badge on your site.',
    missing: 'Our badge was not on your site.',
    inconclusive: 'Your site did not answer usefully, so we could not tell; we check again.',
  };
  return words[status] ?? `The last badge check says: ${status.replace(/_/g, ' ')}.`;
}

/** The step's link, or a small form when the step changes something (a retry creates a draft). */
export function stepAction(step: NextStep, token: string): SafeHtml {
  const action = step.action;
  if (!action) return html`<span class="muted">—</span>`;
  if (!action.post) return html`<a href="${action.href}">${action.label}</a>`;
  const hidden = Object.entries(action.post).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return postForm(action.href, token, html`${hidden}<button class="link" type="submit">${action.label}</button>`, 'inline');
}
