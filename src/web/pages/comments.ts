import type { Context } from 'koa';
import {
  deleteCommentOp,
  editCommentOp,
  listCommentsOp,
  postCommentOp,
  reportCommentOp,
  unvoteCommentOp,
  voteCommentOp,
} from '../../operations/comments.ts';
import type { Thread, ThreadSort } from '../../operations/read-models/comments.ts';
import { listingBySlug } from '../../operations/read-models/listings.ts';
import { AppError, type ErrorCode } from '../../errors/errors.ts';
import { paths } from '../../lib/paths.ts';
import type { RouteContext, RouteScope } from '../../http/router.ts';
import { discussionSection, type Reader } from '../comments-view.ts';
import { csrfToken } from '../csrf.ts';
import { redirectWithFlash, takeFlash } from '../flash.ts';
import { formBody, formString } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { forgetKeptPages } from '../page-cache.ts';
import { renderPage } from '../render.ts';
import { currentUser, requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

/** Comments the listing page shows (the rest are on the discussion's own pages). */
export const FIRST_COMMENTS = 20;

type Action = (ctx: RouteContext, listingId: number) => Promise<{ notice: string; anchor: string }>;

const commentId = (ctx: Context) => Number(formString(formBody(ctx), 'comment_id'));
const back = (anchor: string) => (notice: string) => ({ notice, anchor });

/**
 * The discussion's forms: each a CSRF-checked post of a signed-in person that calls the
 * operation an agent would, forgets the listing's kept page (so visitors see the change at once)
 * and goes back to the listing at the comment; a refusal goes back with its message.
 */
export const commentPages: PageRoutes = (router, services) => {
  const on = (action: string, run: Action) => commentAction(router, services, action, run);
  on('comment', async (ctx, listingId) => {
    const body = formBody(ctx);
    const parent = formString(body, 'parent_id');
    const key = formString(body, 'key');
    const input = { listing_id: listingId, body: formString(body, 'body'), ...(parent ? { parent_id: Number(parent) } : {}) };
    const idempotencyKey = /^[A-Za-z0-9-]{16,64}$/.test(key) ? key : undefined;
    const posted = await invokeForPage(ctx, services, postCommentOp, input, { idempotencyKey });
    return { notice: posted.status === 'held' ? 'comment-held' : 'commented', anchor: `comment-${posted.id}` };
  });
  on('comment-edit', async (ctx) => {
    const edited = await invokeForPage(ctx, services, editCommentOp, {
      comment_id: commentId(ctx),
      body: formString(formBody(ctx), 'body'),
    });
    return { notice: 'comment-edited', anchor: `comment-${edited.id}` };
  });
  on('comment-delete', async (ctx) => {
    await invokeForPage(ctx, services, deleteCommentOp, { comment_id: commentId(ctx) });
    return back('discussion')('comment-deleted');
  });
  on('comment-vote', async (ctx) => {
    const id = commentId(ctx);
    await invokeForPage(ctx, services, voteCommentOp, { comment_id: id });
    return back(`comment-${id}`)('comment-voted');
  });
  on('comment-unvote', async (ctx) => {
    const id = commentId(ctx);
    await invokeForPage(ctx, services, unvoteCommentOp, { comment_id: id });
    return back(`comment-${id}`)('comment-unvoted');
  });
  on('comment-report', async (ctx) => {
    const id = commentId(ctx);
    const reason = formString(formBody(ctx), 'reason') as 'spam';
    await invokeForPage(ctx, services, reportCommentOp, { comment_id: id, reason });
    return back(`comment-${id}`)('comment-reported');
  });

  router.get('/listings/{slug}/comments', async function discussionPage(ctx) {
    const listing = await listingBySlug(services, String(ctx.params.slug));
    const sort: ThreadSort = ctx.query.sort === 'newest' ? 'newest' : 'top';
    const page = Math.min(100_000, Math.max(1, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1));
    const thread = await invokeForPage(ctx, services, listCommentsOp, { listing_id: listing.id, sort, page, per_page: FIRST_COMMENTS });
    await renderPage(ctx, services, {
      title: `Discussion · page ${page}`,
      main: html`<p><a href="${paths.listing(listing.slug)}">Back to the listing</a></p>
${await discussion(ctx, services, listing.slug, thread)}`,
    });
  });
};

function commentAction(router: RouteScope, services: WebServices, action: string, run: Action): void {
  router.post(`/listings/{slug}/${action}`, requireUser(services), async function commentFromPage(ctx) {
    const listing = await listingBySlug(services, String(ctx.params.slug));
    const to = paths.listing(listing.slug);
    let outcome: { notice: string; anchor: string };
    try {
      outcome = await run(ctx, listing.id);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      return redirectWithFlash(ctx, services, `${to}#discussion`, { form: 'comment', errors: { body: refusalText(err) } });
    }
    forgetKeptPages(services, listing.slug);
    ctx.status = 303;
    ctx.redirect(`${to}?notice=${outcome.notice}#${outcome.anchor}`);
  });
}

const WORDS: Partial<Record<ErrorCode, string>> = {
  not_found: 'That comment is no longer there.',
  rate_limited: 'You are commenting very fast. Wait a little, then send it again.',
};

/** The refusal in words for the page: a field's message, else the problem's detail. */
function refusalText(err: AppError): string {
  const field = err.errors?.[0];
  if (field) return field.path === 'body' ? `Your text: ${field.message.toLowerCase()}.` : `Not sent: ${field.message.toLowerCase()}.`;
  return WORDS[err.code] ?? err.message;
}

/** What a signed-in person whose address is not confirmed sees instead of the comment form. */
export const CONFIRM_TO_COMMENT = html`<p class="hint">Confirm your email address (see the link we mailed you) to comment.</p>`;

/**
 * The discussion for this reader: forms for a signed-in person with a confirmed address, the
 * message of a refused form (a flash, read only on a signed-in page so kept pages set no cookie).
 */
export async function discussion(ctx: Context, services: WebServices, slug: string, thread: Thread): Promise<SafeHtml> {
  const user = await currentUser(ctx, services);
  const reader: Reader | null = user ? { token: await csrfToken(ctx, services), canWrite: user.emailVerifiedAt !== null } : null;
  const flash = user ? takeFlash(ctx, services) : undefined;
  const invite = user
    ? CONFIRM_TO_COMMENT
    : html`<p><a href="/signin?return_to=${encodeURIComponent(paths.listing(slug) + '#discussion')}">Sign in to join the discussion</a></p>`;
  const pages = Math.ceil(thread.total / thread.per_page);
  const base = `${paths.listing(slug)}/comments`;
  const more = html`<p class="discussion-nav">${
    thread.page < pages && html`<a href="${base}?sort=${thread.sort}&amp;page=${thread.page + 1}">More comments</a> · `
  }<a href="${base}?sort=${thread.sort === 'top' ? 'newest' : 'top'}">${thread.sort === 'top' ? 'Newest first' : 'Top first'}</a></p>`;
  return discussionSection(slug, thread, reader, { invite, error: flash?.form === 'comment' ? flash.errors.body : undefined, more });
}
