import type { Context } from 'koa';
import type { z } from 'zod';
import type { getDraftOp } from '../../operations/drafts.ts';
import { paths } from '../../paths.ts';
import { errorSummary, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import type { FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { draftNextStep, draftPage, stepAction } from '../next-steps.ts';
import { renderPage } from '../render.ts';
import type { WebServices } from '../web-services.ts';

type DraftView = z.output<typeof getDraftOp.output>;

/** The listing that already holds the draft's company on this site (submit refused: already_listed). */
export interface ListedCompany {
  slug: string;
}

/** How often a page of a draft still in the works reloads itself. */
const POLL_MS = 1500;

/**
 * One draft for its owner: while crawling or drafting the page reloads itself (a nonce'd inline
 * script, allowed by the page CSP); ready shows the drafted fields and the submit button; failed
 * shows the reason and a retry.
 */
export async function draftProgressPage(
  ctx: Context,
  services: WebServices,
  draft: DraftView,
  o: { status?: number; errors?: FieldMessages; listed?: ListedCompany } = {},
): Promise<void> {
  const token = await csrfToken(ctx, services);
  const step = draftNextStep(draft);
  const working = draft.status === 'crawling' || draft.status === 'drafting';
  await renderPage(ctx, services, {
    title: `Draft from ${draft.url}`,
    status: o.status,
    main: html`${o.listed ? alreadyListed(o.listed) : errorSummary(o.errors)}
<p class="draft-status" role="status"><strong>${step.state}</strong></p>
${working && html`<p>This page updates by itself until the draft is ready. <a href="${draftPage(draft.id)}">Reload</a></p>`}
${draft.status === 'ready' && readyDraft(draft, token)}
${draft.status === 'failed' && html`<p>${stepAction(step, token)} — or <a href="/account/listings">draft from another address</a>.</p>`}
${draft.status === 'submitted' && draft.listing_id && html`<p><a href="${paths.storyEditor(draft.listing_id)}">Write the founder story of your listing</a></p>`}
<p><a href="/account/listings">All your listings</a></p>`,
    script: working ? `setTimeout(function () { location.reload(); }, ${POLL_MS});` : undefined,
  });
}

/** submit refused because the company is listed: say so in words, with the way to claim that listing. */
function alreadyListed(listed: ListedCompany): SafeHtml {
  return html`<div class="error-summary" role="alert" data-code="already_listed">
<h2>Your company is listed here already</h2>
<p>This website’s company already has a listing on this site (<code>${listed.slug}</code>), and each company is listed once per site, so this draft cannot become a second one.</p>
<p>If the company is yours, <a href="${paths.newClaim(listed.slug)}">claim that listing</a>: prove ownership by a DNS record, a meta tag, a file or an email at your domain, and it becomes yours to edit.</p>
</div>`;
}

function readyDraft(draft: DraftView, token: string): SafeHtml {
  const f = draft.fields!;
  const row = (label: string, value: SafeHtml | string | null | undefined) =>
    html`<dt>${label}</dt><dd>${value || html`<span class="muted">not found</span>`}</dd>`;
  return html`<dl class="facts drafted">
${row('Name', f.name)}
${row('Headline', f.headline)}
${row('Summary', f.summary)}
${row('Categories', f.categories.join(', '))}
${row('Contact email', f.contact_email)}
${row('Socials', Object.keys(f.socials).join(', '))}
${row('FAQs', f.faqs.length ? `${f.faqs.length} questions` : null)}
</dl>
<p class="muted">Every field names the page it came from; change any of them with <a href="/docs#update_draft">update_draft</a> before you submit.</p>
${postForm(`${draftPage(draft.id)}/submit`, token, html`<button type="submit">Submit as a listing</button>`)}`;
}
