import type { Context } from 'koa';
import type { VoteTarget } from '../../operations/read-models/votes.ts';
import { unvoteClosesAt, voteFor, withdrawVoteFor } from '../../operations/votes.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { html, type SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { forgetKeptPages } from '../page-cache.ts';
import { safeReturnTo } from '../return-to.ts';
import { currentUser } from '../session.ts';
import type { SessionUser } from '../../auth/sessions.ts';
import type { WebServices } from '../web-services.ts';
import { listingAction } from './listing-actions.ts';
import { slot, slotData, type FilledPart, type Slot } from '../personal-slots.ts';
import { tokenPieces } from '../token-fragments.ts';
import type { PageRoutes } from './page-routes.ts';

const listingPath = (slug: string) => `/listings/${encodeURIComponent(slug)}`;

/**
 * Votes are cast here only: CSRF-checked form posts of signed-in people (the router refuses a
 * post without the token). There is deliberately no REST operation or MCP tool for voting.
 * Each post goes back to the page it came from (`return_to`), at the listing's row.
 */
export const votePages: PageRoutes = (router, services) => {
  listingAction(
    router,
    services,
    'vote',
    async (ctx, listing) => {
      await voteFor(await pageContext(ctx, services), listing.id, voteRequest(ctx, services));
      forgetKeptPages(services, listing.slug);
    },
    (ctx, slug) => back(ctx, slug, 'voted'),
  );
  listingAction(
    router,
    services,
    'unvote',
    async (ctx, listing) => {
      await withdrawVoteFor(await pageContext(ctx, services), listing.id);
      forgetKeptPages(services, listing.slug);
    },
    (ctx, slug) => back(ctx, slug, 'unvoted'),
  );
};

/**
 * The request's signals for the vote: the user agent, and the outside page that sent the voter to
 * the listing (the form's `from`, filled from the page view's Referer; else this post's Referer).
 */
function voteRequest(ctx: Context, services: WebServices) {
  const body = (ctx.request as { body?: Record<string, unknown> }).body;
  const from = typeof body?.from === 'string' && body.from.length <= 2048 ? body.from : '';
  return {
    userAgent: ctx.get('user-agent').slice(0, 512),
    referrer: from || ctx.get('referer') || null,
    ownHost: ctx.hostname,
    secret: (name: string) => services.secrets.get(name),
  };
}

function back(ctx: Context, slug: string, notice: 'voted' | 'unvoted') {
  const body = (ctx.request as { body?: Record<string, unknown> }).body;
  const target = new URL(safeReturnTo(body?.return_to, listingPath(slug)), 'http://return.invalid');
  target.searchParams.set('notice', notice);
  target.hash = `vote-${slug}`;
  ctx.status = 303;
  ctx.redirect(target.pathname + target.search + target.hash);
}

/**
 * The Vote / Unvote control of a listing for the viewer: a sign-in link for visitors, a hint for
 * unconfirmed accounts and owners, Unvote only while the launch week runs. `returnTo` is the page
 * the post comes back to. Showing the Vote button counts a view (src/domain/votes/button-views.ts).
 */
export async function voteControl(ctx: Context, services: WebServices, l: VoteTarget, voted: boolean, returnTo: string): Promise<SafeHtml> {
  const user = await currentUser(ctx, services);
  if (!user) {
    const anonymous = wrap(l, 'anonymous', html`<a href="/signin?return_to=${encodeURIComponent(returnTo)}">Sign in to vote</a>`);
    return slot('vote', slotData({ ...l, owner_id: null, returnTo }), anonymous);
  }
  return personVoteControl(services, await voteViewer(ctx, services, user), l, l.owner_id === user.id, voted, returnTo);
}

/** What a signed-in person's vote controls on one page share: who, their CSRF token, the time, where they came from. */
export interface VoteViewer {
  user: SessionUser;
  token: string;
  /** The token's bytes, put between the pieces of kept controls. */
  tokenBytes: Buffer;
  now: Date;
  /** The outside site that sent them to this page (outsideReferrer). */
  from: string | null;
}

export async function voteViewer(ctx: Context, services: WebServices, user: SessionUser): Promise<VoteViewer> {
  const token = await csrfToken(ctx, services);
  return { user, token, tokenBytes: Buffer.from(token), now: services.clock.now(), from: outsideReferrer(ctx) };
}

/** A signed-in person's vote control, rendered for them. */
export function personVoteControl(
  services: WebServices,
  viewer: VoteViewer,
  l: VoteListing,
  own: boolean,
  voted: boolean,
  returnTo: string,
): SafeHtml {
  const state = viewerState(viewer, l, own, voted);
  return renderVoteControl(l, state, returnTo, shown(services, viewer, l, state), viewer.token);
}

/**
 * A signed-in person's vote control in a kept page's slot: its pieces around their token, rendered
 * once per slot and state (tokenPieces), as a ranking page fills a hundred of them for every person.
 */
export function keptVoteControl(
  services: WebServices,
  viewer: VoteViewer,
  l: VoteListing & { returnTo: string },
  own: boolean,
  voted: boolean,
  keptSlot: Slot,
): FilledPart {
  const state = viewerState(viewer, l, own, voted);
  const from = shown(services, viewer, l, state);
  // A Vote form that names the outside site they came from is theirs alone: a Referer chosen by
  // the client must not add pieces to what a kept slot holds.
  if (from) return renderVoteControl(l, state, l.returnTo, from, viewer.token).value;
  const pieces = tokenPieces(keptSlot, state, (token) => renderVoteControl(l, state, l.returnTo, null, token));
  return { pieces, between: viewer.tokenBytes };
}

function viewerState(viewer: VoteViewer, l: VoteListing, own: boolean, voted: boolean): Exclude<VoteState, 'anonymous'> {
  if (own) return 'own';
  if (!viewer.user.emailVerifiedAt) return 'unconfirmed';
  if (!voted) return 'none';
  return viewer.now.getTime() >= (l.launch_week ? unvoteClosesAt(l.launch_week) : 0) ? 'closed' : 'voted';
}

/** Counts a Vote button shown (state `none`); the outside site its form names, if any. */
function shown(services: WebServices, viewer: VoteViewer, l: VoteListing, state: VoteState): string | null {
  if (state !== 'none') return null;
  services.pageCounters.voteButtonShown(l.id, l.launch_week, viewer.now);
  return viewer.from;
}

/** A listing as its vote control shows it (whose it is comes apart, as `own`). */
type VoteListing = Omit<VoteTarget, 'owner_id'>;

/** Whose control it is: a visitor's, the owner's, an unconfirmed account's, not voted yet, voted (Unvote), voted after the week. */
type VoteState = 'anonymous' | 'own' | 'unconfirmed' | 'none' | 'voted' | 'closed';

function wrap(l: VoteListing, state: VoteState, inner: SafeHtml): SafeHtml {
  const count = html`<span class="vote-count" data-votes>${l.votes}</span> ${l.votes === 1 ? 'vote' : 'votes'}`;
  return html`<div class="vote" id="vote-${l.slug}" data-vote-state="${state === 'closed' ? 'voted' : state}">${count} ${inner}</div>`;
}

function renderVoteControl(
  l: VoteListing,
  state: Exclude<VoteState, 'anonymous'>,
  returnTo: string,
  from: string | null,
  token: string,
): SafeHtml {
  if (state === 'own') return wrap(l, state, html`<span class="muted">Your listing</span>`);
  if (state === 'unconfirmed') return wrap(l, state, html`<span class="muted">Confirm your email address to vote</span>`);
  if (state === 'closed') return wrap(l, state, html`<span class="muted">You voted</span>`);
  const name = html`<span class="visually-hidden"> for ${l.name}</span>`;
  const returnField = html`<input type="hidden" name="return_to" value="${returnTo}">`;
  if (state === 'none') {
    const fromField = from ? html`<input type="hidden" name="from" value="${from}">` : html``;
    return wrap(
      l,
      state,
      postForm(`${listingPath(l.slug)}/vote`, token, html`${returnField}${fromField}<button type="submit">Vote${name}</button>`, 'inline'),
    );
  }
  return wrap(
    l,
    state,
    postForm(
      `${listingPath(l.slug)}/unvote`,
      token,
      html`${returnField}<button type="submit" class="secondary">Unvote${name}</button>`,
      'inline',
    ),
  );
}

/** The Referer of this page view when it is another site (where the visitor came from); else null. */
function outsideReferrer(ctx: Context): string | null {
  const referer = ctx.get('referer');
  if (!referer || referer.length > 2048) return null;
  try {
    const url = new URL(referer);
    return url.hostname.toLowerCase() === ctx.hostname.toLowerCase() ? null : `${url.protocol}//${url.host}/`;
  } catch {
    return null;
  }
}
