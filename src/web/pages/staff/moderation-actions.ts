import type { Context } from 'koa';
import { AppError, notFound } from '../../../errors/errors.ts';
import { parseId } from '../../../operations/schemas.ts';
import { staffRestoreListingOp, staffRevertListingEditOp, staffUnlistListingOp } from '../../../operations/staff-moderation.ts';
import { staffDecideVoteFlagOp } from '../../../operations/staff-vote-flags.ts';
import { COMMENT_ACTIONS, staffModerateCommentOp } from '../../../operations/staff-comments.ts';
import { formBody, formString } from '../../forms.ts';
import { invokeForPage } from '../../invoke.ts';
import type { WebServices } from '../../web-services.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';
import { COMMENT_ACTIONS_PATH, HIDE_REASON_MAX, hideReasonId } from './comment-queue.ts';
import { MODERATION_PATH, moderationPage, REASON_MAX } from './moderation.ts';

/** Refusals a moderator can act on: the page comes back with the reason on top. */
const SHOWN_REFUSALS = new Set(['edit_superseded', 'listing_not_live', 'listing_not_unlisted', 'flag_decided', 'comment_state_conflict']);

/** The notice each comment decision comes back with (moderation.ts NOTICES). */
const COMMENT_NOTICES = { approve: 'approved', hide: 'hidden', restore: 'restored_comment', dismiss: 'dismissed' } as const;

/** The forms of the moderation page; each answers with the page again (303 after a change). */
export const staffModerationActions: PageRoutes = (router, services) => {
  router.post(`${MODERATION_PATH}/edits/{id}/revert`, requireStaff(services, ['admin', 'moderator']), async function revertEdit(ctx) {
    const id = idOf(ctx, 'id', 'The edit');
    const done = await invokeForPage(ctx, services, staffRevertListingEditOp, { id }).catch(refusal);
    if (done instanceof AppError) return refused(ctx, services, done);
    back(ctx, `reverted=${id}`, `edit-${done.revert.id}`);
  });

  for (const kind of ['unlist', 'restore'] as const) {
    const op = kind === 'unlist' ? staffUnlistListingOp : staffRestoreListingOp;
    router.post(
      `${MODERATION_PATH}/listings/{id}/${kind}`,
      requireStaff(services, ['admin', 'moderator']),
      async function moderateListing(ctx) {
        const id = idOf(ctx, 'id', 'The listing');
        const reason = formString(formBody(ctx), 'reason').trim();
        if (!reason || reason.length > REASON_MAX) {
          const message = reason ? `Keep the reason under ${REASON_MAX} characters.` : `Say why: the owner is told.`;
          return moderationPage(ctx, services, { status: 422, errors: { [`reason-${id}`]: message } });
        }
        const done = await invokeForPage(ctx, services, op, { listing: String(id), reason }).catch(refusal);
        if (done instanceof AppError) return refused(ctx, services, done);
        back(ctx, `${kind === 'unlist' ? 'unlisted' : 'restored'}=${encodeURIComponent(done.name)}`, 'listings');
      },
    );
  }

  router.post(`${MODERATION_PATH}/flags/{id}/decide`, requireStaff(services, ['admin', 'moderator']), async function decideFlag(ctx) {
    const id = idOf(ctx, 'id', 'The flag');
    const decision = formString(formBody(ctx), 'decision');
    if (decision !== 'keep' && decision !== 'void') {
      return moderationPage(ctx, services, { status: 400, errors: { form: 'Choose Keep or Void.' } });
    }
    const done = await invokeForPage(ctx, services, staffDecideVoteFlagOp, { id, decision }).catch(refusal);
    if (done instanceof AppError) return refused(ctx, services, done);
    back(ctx, `${done.state}=${id}`, 'flags');
  });

  router.post(`${COMMENT_ACTIONS_PATH}/{id}`, requireStaff(services, ['admin', 'moderator']), async function moderateComment(ctx) {
    const id = idOf(ctx, 'id', 'The comment');
    const form = formBody(ctx);
    const action = COMMENT_ACTIONS.find((a) => a === formString(form, 'action'));
    if (!action) return moderationPage(ctx, services, { status: 400, errors: { form: 'Choose Approve, Hide, Restore or Dismiss.' } });
    const reason = formString(form, 'reason').trim();
    if (action === 'hide' && (!reason || reason.length > HIDE_REASON_MAX)) {
      const message = reason ? `Keep the reason under ${HIDE_REASON_MAX} characters.` : 'Say why: the reason is shown in its place.';
      return moderationPage(ctx, services, { status: 422, errors: { [hideReasonId(id)]: message } });
    }
    const input = { comment_id: id, action, ...(action === 'hide' ? { reason } : {}) };
    const done = await invokeForPage(ctx, services, staffModerateCommentOp, input).catch(refusal);
    if (done instanceof AppError) return refused(ctx, services, done);
    back(ctx, `${COMMENT_NOTICES[action]}=${id}`, 'reports');
  });
};

function idOf(ctx: Context, param: string, what: string): number {
  const id = parseId(ctx.params[param]);
  if (!id) throw notFound(what);
  return id;
}

/** A refusal the page shows (others, a 404 among them, go to the error page as usual). */
function refusal(err: unknown): AppError {
  if (err instanceof AppError && SHOWN_REFUSALS.has(err.code)) return err;
  throw err;
}

const refused = (ctx: Context, services: WebServices, err: AppError) =>
  moderationPage(ctx, services, { status: err.status, errors: { form: err.message } });

function back(ctx: Context, query: string, anchor: string): void {
  ctx.status = 303;
  ctx.redirect(`${MODERATION_PATH}?${query}#${anchor}`);
}
