import type { Context } from 'koa';
import { displayName } from '../../operations/read-models/display-names.ts';
import type { z } from 'zod';
import type { getDraftOp } from '../../operations/drafts.ts';
import { CATEGORY_SLUGS } from '../../operations/read-models/categories.ts';
import { companyListedForDraft } from '../../operations/read-models/drafts.ts';
import { paths } from '../../lib/paths.ts';
import { errorSummary, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import type { FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import {
  COMPANY_FIELDS,
  evidenceNote,
  FACT_NAMES,
  formValueOf,
  inputValueOf,
  listingFieldControl,
  SITE_TEXT_FIELDS,
  type ListingField,
} from '../listing-fields.ts';
import { draftNextStep, draftPage, stepAction } from '../next-steps.ts';
import { pageContext } from '../invoke.ts';
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
 * script, allowed by the page CSP); ready shows the drafted fields as a form (update_draft), each
 * with where it was found, and "Submit listing"; failed
 * shows the reason and a retry.
 */
export async function draftProgressPage(
  ctx: Context,
  services: WebServices,
  draft: DraftView,
  o: { status?: number; errors?: FieldMessages; listed?: ListedCompany; values?: Record<string, unknown> } = {},
): Promise<void> {
  const token = await csrfToken(ctx, services);
  // A company listed here already cannot be submitted again: the page offers the claim, not the button.
  const listed =
    o.listed ?? (draft.status === 'ready' ? await companyListedForDraft(await pageContext(ctx, services), draft.id) : undefined);
  const step = draftNextStep(draft);
  const working = draft.status === 'crawling' || draft.status === 'drafting';
  await renderPage(ctx, services, {
    title: `Draft from ${draft.url}`,
    status: o.status,
    main: html`${listed ? alreadyListed(listed) : errorSummary(o.errors)}
<p class="draft-status" role="status"><strong>${step.state}</strong></p>
${working && html`<p>This page updates by itself until the draft is ready. <a href="${draftPage(draft.id)}">Reload</a></p>`}
${!listed && step.next && html`<p>${step.next}</p>`}
${draft.status === 'ready' && readyDraft(draft, token, { ...o, listed })}
${draft.status === 'failed' && html`<p>${stepAction(step, token)} — or <a href="/account/listings">draft from another address</a>.</p>`}
${draft.status === 'submitted' && html`<p>${stepAction(step, token)}</p>`}
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

/** The drafted fields the review edits in place (update_draft): the company facts live under `facts`. */
const DRAFT_FIELDS: ListingField[] = [
  COMPANY_FIELDS.find((f) => f.name === 'name')!,
  ...SITE_TEXT_FIELDS.filter((f) => f.name === 'headline' || f.name === 'summary'),
  ...COMPANY_FIELDS.filter((f) => f.name !== 'name'),
];

const categoryLabel = (slug: string) => displayName('category', slug);

/** The stored value of a drafted field, as the form shows it. */
function draftValue(f: NonNullable<DraftView['fields']>, field: ListingField): string {
  const source = FACT_NAMES.has(field.name) ? (f.facts as Record<string, unknown>) : (f as unknown as Record<string, unknown>);
  return formValueOf(source[field.name]);
}

/** update_draft's input from the review form: the fields whose value differs from the draft's. */
export function draftEdit(draft: DraftView, body: Record<string, unknown>): Record<string, unknown> {
  const f = draft.fields!;
  const changes: Record<string, unknown> = {};
  const facts: Record<string, unknown> = { ...f.facts };
  let factsChanged = false;
  for (const field of DRAFT_FIELDS) {
    const raw = body[field.name];
    // A field the form did not send stays as it is.
    if (typeof raw !== 'string' || raw.trim() === draftValue(f, field).trim()) continue;
    const value = inputValueOf(field, raw);
    if (FACT_NAMES.has(field.name)) {
      factsChanged = true;
      if (value === null) delete facts[field.name];
      else facts[field.name] = value;
    } else changes[field.name] = value;
  }
  if (factsChanged) changes.facts = facts;
  // Unticking every box sends nothing: the form's marker says the categories were on it.
  const categories = [body.categories ?? []].flat().filter((c): c is string => typeof c === 'string');
  if (body.categories_shown === '1' && JSON.stringify([...categories].sort()) !== JSON.stringify([...f.categories].sort()))
    changes.categories = categories;
  return changes;
}

/** The form field of an error path of update_draft (`facts.location` is the location box). */
export const draftFieldOf = (path: string[]): string => {
  const [part, key] = path;
  if (part === 'facts' && key) return key;
  return part && part !== '(body)' ? part : 'form';
};

function readyDraft(
  draft: DraftView,
  token: string,
  o: { errors?: FieldMessages; values?: Record<string, unknown>; listed?: ListedCompany },
): SafeHtml {
  const f = draft.fields!;
  const value = (field: ListingField) => {
    const sent = o.values?.[field.name];
    return typeof sent === 'string' ? sent : draftValue(f, field);
  };
  const sentCategories = o.values && [o.values.categories ?? []].flat();
  const chosen = new Set((sentCategories ?? f.categories) as string[]);
  const socials = Object.entries(f.socials);
  return html`${postForm(
    draftPage(draft.id),
    token,
    html`<p class="hint">Check each field and change what is wrong. Under each field, the page of your website it was read from.</p>
${DRAFT_FIELDS.map((field) => listingFieldControl(field, value(field), { error: o.errors?.[field.name], evidence: draft.evidence }))}
<fieldset id="f-categories"><legend>Categories (at most 5)</legend>
<input type="hidden" name="categories_shown" value="1">
${o.errors?.categories && html`<p class="error">${o.errors.categories}</p>`}
${draft.evidence.categories && html`<p class="hint">${evidenceNote(draft.evidence.categories)}</p>`}
<div class="choices">${CATEGORY_SLUGS.map((slug) => html`<label class="check"><input type="checkbox" name="categories" value="${slug}"${chosen.has(slug) ? html` checked` : ''}> ${categoryLabel(slug)}</label>`)}</div>
</fieldset>
<dl class="facts drafted">
<dt>Social links</dt><dd>${socials.length ? html`<ul class="plain">${socials.map(([p, url]) => html`<li>${displayName('platform', p)}: ${url}</li>`)}</ul>` : html`<span class="muted">None found</span>`}</dd>
<dt>FAQs</dt><dd>${f.faqs.length ? `${f.faqs.length} questions` : html`<span class="muted">None found</span>`}</dd>
</dl>
<p class="hint">Social links and FAQs can be changed on the listing’s edit page once it is submitted.</p>
<button type="submit" name="then" value="save" class="secondary">Save changes</button>
${!o.listed && html`<button type="submit" name="then" value="submit">Submit listing</button>`}`,
  )}`;
}
