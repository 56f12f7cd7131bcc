import type { Context } from 'koa';
import type { z } from 'zod';
import { staffFindListingsOp, staffListListingEditsOp } from '../../../operations/staff-moderation.ts';
import { staffListVoteFlagsOp } from '../../../operations/staff-vote-flags.ts';
import { staffListCommentQueueOp } from '../../../operations/staff-comments.ts';
import { errorSummary, postForm, time } from '../../components.ts';
import { csrfToken } from '../../csrf.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { listingStatusPhrase } from '../../next-steps.ts';
import { renderPage } from '../../render.ts';
import type { WebServices } from '../../web-services.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';
import { commentQueueSection } from './comment-queue.ts';
import { editDiff } from './diff.ts';

export const MODERATION_PATH = '/staff/moderation';
export const REASON_MAX = 500;

type Edit = z.output<typeof staffListListingEditsOp.output>['items'][number];
type Listing = z.output<typeof staffFindListingsOp.output>['items'][number];
type Flag = z.output<typeof staffListVoteFlagsOp.output>['items'][number];

/** What a page shows after an action, or the refusal it re-renders with. */
export interface Shown {
  status?: number;
  notice?: string;
  /** Field messages keyed as the forms' ids (`reason-{listing id}`), or `form`. */
  errors?: Record<string, string>;
}

/**
 * The moderators' page: recent edits as before/after diffs with "Revert this edit", listings to
 * unlist or restore, the vote-ring flags to keep or void, and the discussion's held and reported comments.
 */
export const staffModerationPages: PageRoutes = (router, services) => {
  router.get(MODERATION_PATH, requireStaff(services, ['admin', 'moderator']), async function moderation(ctx) {
    await moderationPage(ctx, services, { notice: noticeOf(ctx) });
  });
};

const NOTICES: Record<string, (v: string) => string> = {
  reverted: (v) => `Edit ${v} is reverted: its fields are back as they were, kept as a new edit.`,
  unlisted: (v) => `“${v}” is unlisted; its owner is told why.`,
  restored: (v) => `“${v}” is back on the site; its owner is told.`,
  kept: (v) => `Flag ${v}: the vote counts again.`,
  voided: (v) => `Flag ${v}: the vote is removed and shown publicly with its reason.`,
  approved: (v) => `Comment ${v} is approved: everyone sees it now.`,
  hidden: (v) => `Comment ${v} is hidden; its place shows the reason.`,
  restored_comment: (v) => `Comment ${v} is shown again.`,
  dismissed: (v) => `The reports of comment ${v} are dismissed; it stays as it is.`,
};

function noticeOf(ctx: Context): string | undefined {
  for (const [key, text] of Object.entries(NOTICES)) {
    const value = ctx.query[key];
    if (typeof value === 'string' && value.length <= 200) return text(value);
  }
  return undefined;
}

const queryText = (ctx: Context, name: string) =>
  typeof ctx.query[name] === 'string' ? (ctx.query[name] as string).trim().slice(0, 80) : '';

export async function moderationPage(ctx: Context, services: WebServices, shown: Shown = {}): Promise<void> {
  const q = queryText(ctx, 'q');
  const pageNo = /^\d{1,5}$/.test(queryText(ctx, 'page')) ? Math.max(1, Number(queryText(ctx, 'page'))) : 1;
  const [edits, found, unlisted, flags, waiting, hidden] = await Promise.all([
    invokeForPage(ctx, services, staffListListingEditsOp, { page: pageNo, per_page: 10 }),
    q ? invokeForPage(ctx, services, staffFindListingsOp, { q, limit: 20 }) : null,
    invokeForPage(ctx, services, staffFindListingsOp, { unlisted: true, limit: 100 }),
    invokeForPage(ctx, services, staffListVoteFlagsOp, { state: 'discounted', limit: 100 }),
    invokeForPage(ctx, services, staffListCommentQueueOp, { list: 'waiting', page: 1, per_page: 50 }),
    invokeForPage(ctx, services, staffListCommentQueueOp, { list: 'hidden', page: 1, per_page: 20 }),
  ]);
  const token = await csrfToken(ctx, services);
  await renderPage(ctx, services, {
    title: 'Moderation',
    status: shown.status,
    notice: shown.notice,
    main: html`${errorSummary(shown.errors)}
<nav aria-label="Sections of this page"><ul class="choices"><li><a href="#edits">Recent edits</a></li><li><a href="#listings">Listings</a></li><li><a href="#flags">Vote flags</a></li><li><a href="#reports">Reports</a></li></ul></nav>
${editsSection(edits, pageNo, token)}
${listingsSection(q, found?.items ?? null, unlisted.items, token, shown)}
${flagsSection(flags.items, token)}
${commentQueueSection(waiting, hidden, token, shown.errors)}`,
  });
}

function editsSection(edits: { items: Edit[]; total: number; per_page: number }, pageNo: number, token: string): SafeHtml {
  const pages = Math.max(1, Math.ceil(edits.total / edits.per_page));
  return html`<section id="edits" aria-labelledby="edits-title"><h2 id="edits-title">Recent edits</h2>
${edits.items.length === 0 ? html`<p>No edits yet.</p>` : edits.items.map((e) => editArticle(e, token))}
${pages > 1 ? html`<nav aria-label="Pages of edits"><p>Page ${pageNo} of ${pages}. ${pageNo > 1 ? html`<a href="${MODERATION_PATH}?page=${pageNo - 1}#edits">Newer edits</a> ` : ''}${pageNo < pages ? html`<a href="${MODERATION_PATH}?page=${pageNo + 1}#edits">Older edits</a>` : ''}</p></nav>` : ''}
</section>`;
}

function editArticle(e: Edit, token: string): SafeHtml {
  const who = e.editor_email ?? (e.editor_id === null ? 'the site team' : 'a deleted account');
  return html`<article class="edit" id="edit-${e.id}" data-edit="${e.id}" aria-labelledby="edit-${e.id}-title">
<h3 id="edit-${e.id}-title">Edit ${e.id} of ${e.listing_name}</h3>
<p>${time(e.created_at)} by ${who}${e.operation === 'staff_revert_listing_edit' ? ' (a revert)' : ''}${e.via_listing_id !== null ? ` — copied from listing ${e.via_listing_id}` : ''}.</p>
${editDiff(e.changes)}
${postForm(`${MODERATION_PATH}/edits/${e.id}/revert`, token, html`<button type="submit">Revert this edit<span class="visually-hidden"> (${e.id} of ${e.listing_name})</span></button>`)}
</article>`;
}

function listingsSection(q: string, found: Listing[] | null, unlisted: Listing[], token: string, shown: Shown): SafeHtml {
  return html`<section id="listings" aria-labelledby="listings-title"><h2 id="listings-title">Listings</h2>
<form method="get" action="${MODERATION_PATH}#listings" role="search"><div class="field"><label for="f-q">Find a listing by name or address (slug)</label>
<input id="f-q" name="q" type="search" maxlength="80" value="${q}"></div><button type="submit">Find</button></form>
${found === null ? '' : found.length === 0 ? html`<p data-found="0">No listing matches “${q}”.</p>` : listingTable('Found', found, token, shown)}
<h3>Unlisted now</h3>
${unlisted.length === 0 ? html`<p>No listing is unlisted.</p>` : listingTable('Unlisted', unlisted, token, shown)}
</section>`;
}

function listingTable(caption: string, rows: Listing[], token: string, shown: Shown): SafeHtml {
  return html`<table class="stack" data-listings="${caption.toLowerCase()}"><caption class="visually-hidden">${caption} listings</caption>
<thead><tr><th scope="col">Listing</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead>
<tbody>${rows.map(
    (l) => html`<tr data-listing="${l.slug}"><td data-label="Listing">${l.name} <span class="muted">(${l.slug})</span></td>
<td data-label="Status">${listingStatusPhrase(l.status)}${l.unlisted_reason ? html` — <span data-unlisted-reason>${l.unlisted_reason}</span>` : ''}</td>
<td data-label="Action">${actionForm(caption, l, token, shown)}</td></tr>`,
  )}</tbody></table>`;
}

function actionForm(caption: string, l: Listing, token: string, shown: Shown): SafeHtml {
  const kind = l.status === 'live' ? 'unlist' : l.status === 'unlisted' ? 'restore' : null;
  if (!kind) return html`<span class="muted">Not on the site yet: nothing to unlist</span>`;
  const id = `reason-${caption.toLowerCase()}-${l.id}`;
  const error = shown.errors?.[`reason-${l.id}`];
  const label = kind === 'unlist' ? 'Why unlist it (the owner reads this)' : 'Why restore it (the owner reads this)';
  return postForm(
    `${MODERATION_PATH}/listings/${l.id}/${kind}`,
    token,
    html`<div class="field"><label for="f-${id}">${label}</label>
${error ? html`<p class="error" id="f-${id}-error">${error}</p>` : ''}<textarea id="f-${id}" name="reason" rows="2" required maxlength="${REASON_MAX}"${error ? html` aria-invalid="true" aria-describedby="f-${id}-error"` : ''}></textarea></div>
<button type="submit">${kind === 'unlist' ? 'Unlist' : 'Restore'}<span class="visually-hidden"> ${l.name}</span></button>`,
  );
}

function flagsSection(flags: Flag[], token: string): SafeHtml {
  return html`<section id="flags" aria-labelledby="flags-title"><h2 id="flags-title">Vote flags to review</h2>
<p>The ring detectors stopped counting these votes. Keep one to count it again; void it to remove it (shown publicly with the reason).</p>
${
  flags.length === 0
    ? html`<p>No flag waits for a decision.</p>`
    : html`<table class="stack"><thead><tr><th scope="col">Flag</th><th scope="col">Listing</th><th scope="col">Week</th><th scope="col">What was found</th><th scope="col">Decision</th></tr></thead>
<tbody>${flags.map(
        (
          f,
        ) => html`<tr data-flag="${f.id}"><td data-label="Flag">${f.id}</td><td data-label="Listing">${f.listing_slug}</td><td data-label="Week">${f.week}</td>
<td data-label="What was found">${f.reason.replace(/_/g, ' ')}: ${f.detail}</td>
<td data-label="Decision">${postForm(
          `${MODERATION_PATH}/flags/${f.id}/decide`,
          token,
          html`<button type="submit" name="decision" value="keep">Keep<span class="visually-hidden"> the vote of flag ${f.id}</span></button> <button type="submit" name="decision" value="void">Void<span class="visually-hidden"> the vote of flag ${f.id}</span></button>`,
        )}</td></tr>`,
      )}</tbody></table>`
}
</section>`;
}
