import type { z } from 'zod';
import type { staffListCommentQueueOp } from '../../../operations/staff-comments.ts';
import { postForm, time } from '../../components.ts';
import { html, type SafeHtml } from '../../html.ts';

/** Where the queue's forms post: `{COMMENT_ACTIONS_PATH}/{id}` with `action` (and `reason` to hide). */
export const COMMENT_ACTIONS_PATH = '/staff/moderation/comments';
export const HIDE_REASON_MAX = 200;

type Queue = z.output<typeof staffListCommentQueueOp.output>;
type Queued = Queue['items'][number];

/** Report reasons as the moderator reads them. */
const REASON_WORDS: Record<string, string> = { spam: 'spam', abuse: 'abuse', off_topic: 'off topic', other: 'another reason' };

/** The form field id of a comment's hide reason (its error is keyed the same). */
export const hideReasonId = (commentId: number) => `hide-reason-${commentId}`;

/**
 * The discussion's moderation queue on the moderation page: held and reported comments, the
 * longest waiting first, each with its text, author, listing, reports in words and the forms that
 * decide it; then the comments the site team hid, to restore one.
 */
export function commentQueueSection(waiting: Queue, hidden: Queue, token: string, errors: Record<string, string> = {}): SafeHtml {
  return html`<section id="reports" aria-labelledby="reports-title"><h2 id="reports-title">Reports and held comments</h2>
<p>Comments of new accounts wait here before anyone else sees them, and reported comments until someone decides. Every decision closes the comment’s reports.</p>
${
  waiting.items.length === 0
    ? html`<p data-queue-empty>Nothing waits for a decision.</p>`
    : html`<p>${waiting.total} ${waiting.total === 1 ? 'comment waits' : 'comments wait'}, the longest waiting first.</p>${waiting.items.map((c) => queuedArticle(c, token, errors))}`
}
<h3 id="hidden-title">Hidden by the site team</h3>
${hidden.items.length === 0 ? html`<p>No comment is hidden.</p>` : hidden.items.map((c) => queuedArticle(c, token, errors))}
</section>`;
}

function queuedArticle(c: Queued, token: string, errors: Record<string, string>): SafeHtml {
  const author = c.author
    ? html`${c.author.name} (${c.author.email})${c.author.maker ? ', a maker of this listing' : ''}`
    : html`a deleted account`;
  return html`<article class="queued-comment" id="comment-${c.id}" data-queued-comment="${c.id}" aria-labelledby="comment-${c.id}-title">
<h4 id="comment-${c.id}-title">${c.parent_id === null ? 'Comment' : 'Reply'} ${c.id} on <a href="/listings/${c.listing.slug}">${c.listing.name}</a></h4>
<p>By ${author}, ${time(c.created_at)}. ${statusWords(c)}</p>
<blockquote class="comment-text">${c.body.split('\n').map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)}</blockquote>
${reportsText(c)}
${actions(c, token, errors[hideReasonId(c.id)])}
</article>`;
}

function statusWords(c: Queued): SafeHtml {
  if (c.status === 'held') return html`<strong>Waiting for review</strong> (a new account’s comment: nobody else sees it yet).`;
  if (c.status === 'hidden') return html`<strong>Hidden</strong>: its place reads “removed by the site team: ${c.hidden_reason ?? ''}”.`;
  return html`<strong>Shown</strong>, and reported.`;
}

function reportsText(c: Queued): SafeHtml | '' {
  if (c.open_reports === 0) return '';
  const reasons = c.reports_by_reason.map((r) => `${r.count} for ${REASON_WORDS[r.reason] ?? r.reason}`).join(', ');
  return html`<p data-reports="${c.open_reports}">${c.open_reports} ${c.open_reports === 1 ? 'report' : 'reports'}: ${reasons}.</p>
${c.report_notes.length > 0 ? html`<ul aria-label="What reporters wrote">${c.report_notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}`;
}

function actions(c: Queued, token: string, error: string | undefined): SafeHtml {
  const path = `${COMMENT_ACTIONS_PATH}/${c.id}`;
  const which = html`<span class="visually-hidden"> comment ${c.id}</span>`;
  const button = (action: string, label: string) =>
    postForm(path, token, html`<button type="submit" name="action" value="${action}">${label}${which}</button>`);
  if (c.status === 'hidden') return button('restore', 'Restore');
  const id = `f-${hideReasonId(c.id)}`;
  const suggested = c.reports_by_reason[0] ? (REASON_WORDS[c.reports_by_reason[0].reason] ?? '') : '';
  const hide = postForm(
    path,
    token,
    html`<div class="field"><label for="${id}">Reason shown in its place (“removed by the site team: …”)</label>
${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}<input id="${id}" name="reason" type="text" required maxlength="${HIDE_REASON_MAX}" value="${suggested === 'another reason' ? '' : suggested}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}></div>
<button type="submit" name="action" value="hide">Hide${which}</button>`,
  );
  return html`<div class="queue-actions">${c.status === 'held' ? button('approve', 'Approve') : ''}${c.open_reports > 0 && c.status !== 'held' ? button('dismiss', 'Keep it, dismiss the reports') : ''}${hide}</div>`;
}
