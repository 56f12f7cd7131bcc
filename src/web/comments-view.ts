import { randomUUID } from 'node:crypto';
import {
  COMMENT_MAX_CHARS,
  EDIT_WINDOW_MINUTES,
  REPORT_REASONS,
  textParts,
  type CommentView,
  type Thread,
  type ThreadComment,
} from '../operations/read-models/comments.ts';
import { paths } from '../lib/paths.ts';
import { postForm, time } from './components.ts';
import { html, type SafeHtml } from './html.ts';
import { slot, slotData } from './personal-slots.ts';

/** The discussion as HTML: the same markup for visitors (no forms) and signed-in people (forms). */

/** Who is reading: null for a visitor; `token` is their CSRF token. */
export interface Reader {
  token: string;
  canWrite: boolean;
}

const REASON_WORDS: Record<(typeof REPORT_REASONS)[number], string> = {
  spam: 'Spam',
  abuse: 'Abusive or hateful',
  off_topic: 'Off topic',
  other: 'Something else',
};

const actionPath = (slug: string, action: string) => `${paths.listing(slug)}/${action}`;

/** A comment's text: paragraphs and line breaks kept, http(s) addresses as links that pass no ranking credit. */
export function commentText(text: string): SafeHtml {
  const paragraphs = text.split(/\n{2,}/);
  return html`${paragraphs.map(
    (p) =>
      html`<p>${textParts(p).map((part) =>
        'url' in part
          ? html`<a href="${part.url}" rel="nofollow ugc noopener">${part.text}</a>`
          : html`${part.text.split('\n').map((line, i) => html`${i > 0 && html`<br>`}${line}`)}`,
      )}</p>`,
  )}`;
}

/** One comment with its own controls (and, for a top-level one, its replies and reply form). */
function commentItem(slug: string, c: CommentView | ThreadComment, reader: Reader | null): SafeHtml {
  const replies = 'replies' in c ? c.replies : [];
  return html`<li class="comment" id="comment-${c.id}" data-comment-status="${c.status}">
<article aria-labelledby="comment-by-${c.id}">${commentHeader(c)}
${commentBody(c)}
${reader ? commentControls(slug, c, reader) : slot('c', `${c.id}.${c.parent_id ?? 0}.${c.status}`)}
</article>
${replies.length > 0 && html`<ol class="replies">${replies.map((r) => commentItem(slug, r, reader))}</ol>`}
</li>`;
}

function commentHeader(c: CommentView): SafeHtml {
  const who = c.author
    ? html`<strong>${c.author.name}</strong>${c.author.maker && html` <span class="badge maker">Maker</span>`}`
    : html`<span class="muted">${c.status === 'hidden' ? 'Removed' : 'Deleted'}</span>`;
  return html`<p class="comment-head" id="comment-by-${c.id}">${who} · ${time(c.created_at)}${c.edited_at && html` · <span class="muted">edited</span>`} · <span data-comment-votes>${c.votes}</span> ${c.votes === 1 ? 'vote' : 'votes'}</p>`;
}

function commentBody(c: CommentView): SafeHtml {
  if (c.status === 'deleted') return html`<p class="muted">This comment was deleted by its author.</p>`;
  if (c.status === 'hidden') return html`<p class="muted">Removed by the site team${c.hidden_reason && html`: ${c.hidden_reason}`}.</p>`;
  const waiting =
    c.status === 'held' &&
    html`<p class="notice" role="status">Waiting for review: only you can see this comment until the site team approves it.</p>`;
  return html`${waiting}${commentText(c.body)}`;
}

/** A comment's forms for a signed-in reader (none for a removed one, or before the address is confirmed). */
export function commentControls(
  slug: string,
  c: Pick<CommentView, 'id' | 'parent_id' | 'status' | 'body' | 'mine' | 'voted' | 'editable_until'>,
  reader: Reader,
): SafeHtml {
  if (!reader.canWrite || c.status === 'deleted' || c.status === 'hidden') return html``;
  const id = html`<input type="hidden" name="comment_id" value="${c.id}">`;
  const about = html`<span class="visually-hidden"> comment ${c.id}</span>`;
  const vote =
    !c.mine &&
    c.status === 'visible' &&
    (c.voted
      ? postForm(
          actionPath(slug, 'comment-unvote'),
          reader.token,
          html`${id}<button type="submit" class="secondary">Unvote${about}</button>`,
          'inline',
        )
      : postForm(actionPath(slug, 'comment-vote'), reader.token, html`${id}<button type="submit">Upvote${about}</button>`, 'inline'));
  const reply =
    c.parent_id === null &&
    c.status === 'visible' &&
    html`<details><summary>Reply${about}</summary>${bodyForm(slug, 'comment', reader.token, `reply-${c.id}`, 'Your reply', '', html`<input type="hidden" name="parent_id" value="${c.id}">`, 'Post reply')}</details>`;
  const edit =
    c.editable_until &&
    html`<details><summary>Edit${about}</summary>${bodyForm(slug, 'comment-edit', reader.token, `edit-${c.id}`, 'Your comment', c.body, id, 'Save')}
<p class="hint">You can edit for ${EDIT_WINDOW_MINUTES} minutes after posting.</p></details>`;
  const remove =
    c.mine &&
    postForm(
      actionPath(slug, 'comment-delete'),
      reader.token,
      html`${id}<button type="submit" class="secondary">Delete${about}</button>`,
      'inline',
    );
  const report = !c.mine && c.status === 'visible' && reportForm(slug, c.id, reader.token, id, about);
  return html`<div class="comment-actions">${vote}${remove}${reply}${edit}${report}</div>`;
}

function reportForm(slug: string, commentId: number, token: string, id: SafeHtml, about: SafeHtml): SafeHtml {
  const field = `report-${commentId}`;
  return html`<details><summary>Report${about}</summary>${postForm(
    actionPath(slug, 'comment-report'),
    token,
    html`${id}<label for="${field}">Why should the site team look at it?</label>
<select id="${field}" name="reason">${REPORT_REASONS.map((r) => html`<option value="${r}">${REASON_WORDS[r]}</option>`)}</select>
<button type="submit" class="secondary">Send report</button>`,
  )}</details>`;
}

/** A textarea form; `fieldId` keeps labels unique on a page with many forms. */
function bodyForm(
  slug: string,
  action: string,
  token: string,
  fieldId: string,
  label: string,
  value: string,
  extra: SafeHtml,
  button: string,
  error?: string,
) {
  return postForm(
    actionPath(slug, action),
    token,
    html`${extra}<input type="hidden" name="key" value="${randomUUID()}">
<label for="${fieldId}">${label}</label>
${error && html`<p class="error" id="${fieldId}-error">${error}</p>`}
<textarea id="${fieldId}" name="body" rows="4" maxlength="${COMMENT_MAX_CHARS}" required${error ? html` aria-invalid="true" aria-describedby="${fieldId}-error"` : ''}>${value}</textarea>
<button type="submit">${button}</button>`,
  );
}

/**
 * The discussion section: its count, the new-comment form (or what stands in its way), the
 * comments, and a link to the rest. `invite` is what a reader without a form sees instead.
 */
export function discussionSection(
  slug: string,
  thread: Thread,
  reader: Reader | null,
  options: { invite: SafeHtml; error?: string; more?: SafeHtml },
): SafeHtml {
  const n = thread.comment_count;
  const form = reader?.canWrite
    ? newCommentForm(slug, reader.token, options.error)
    : reader
      ? options.invite
      : slot('form', slotData({ slug }), options.invite);
  return html`<section class="discussion" id="discussion" aria-labelledby="discussion-title">
<h2 id="discussion-title">Discussion <span class="muted">(<span data-comment-count>${n}</span> ${n === 1 ? 'comment' : 'comments'})</span></h2>
${form}
${
  thread.items.length > 0
    ? html`<ol class="comments">${thread.items.map((c) => commentItem(slug, c, reader))}</ol>`
    : html`<p class="muted">No comments yet. Ask the makers something.</p>`
}
${options.more}
</section>`;
}

/** The form of a new comment (`error`: why the last one was refused). */
export const newCommentForm = (slug: string, token: string, error?: string): SafeHtml =>
  bodyForm(slug, 'comment', token, 'new-comment', 'Add a comment', '', html``, 'Post comment', error);

/** schema.org for the discussion: the listing's page as a DiscussionForumPosting with its comments. */
export function discussionJsonLd(thread: Thread, listing: { name: string; url: string }, pageUrl: string): object {
  // What every reader sees: a held comment (its author's page) or a removed one is no one's words.
  const shown = (c: CommentView) => c.status === 'visible';
  const comment = (c: CommentView): object => {
    const replies = 'replies' in c ? (c as ThreadComment).replies.filter(shown) : [];
    return {
      '@type': 'Comment',
      author: { '@type': 'Person', name: c.author?.name ?? '' },
      text: c.body,
      datePublished: c.created_at,
      url: `${pageUrl}#comment-${c.id}`,
      interactionStatistic: {
        '@type': 'InteractionCounter',
        interactionType: 'https://schema.org/LikeAction',
        userInteractionCount: c.votes,
      },
      ...(replies.length > 0 ? { comment: replies.map(comment) } : {}),
    };
  };
  return {
    '@context': 'https://schema.org',
    '@type': 'DiscussionForumPosting',
    headline: `Discussion of ${listing.name}`,
    url: `${pageUrl}#discussion`,
    author: { '@type': 'Organization', name: listing.name, url: listing.url },
    text: `Questions and answers between visitors and the makers of ${listing.name}.`,
    commentCount: thread.comment_count,
    comment: thread.items.filter(shown).map(comment),
  };
}
