import type { Context } from 'koa';
import { AppError, notFound } from '../../errors/errors.ts';
import { createDraftOp, getDraftOp, submitDraftOp, updateDraftOp } from '../../operations/drafts.ts';
import { listMyListingsOp } from '../../operations/listings.ts';
import { openDrafts } from '../../operations/read-models/drafts.ts';
import { errorSummary, field, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import type { FieldMessages } from '../forms.ts';
import { formBody, formString } from '../forms.ts';
import { html } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { CREATE_DRAFT_PATH, draftNextStep, draftPage, listingNextStep, ownerPaths, stepAction } from '../next-steps.ts';
import { refusal } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { draftEdit, draftFieldOf, draftProgressPage, type ListedCompany } from './draft-progress.ts';
import { messagesFor } from '../listing-fields.ts';

/** Owners rarely have more; the API lists the rest (list_my_drafts, list_my_listings). */
const SHOWN = 50;

/**
 * The signed-in person's drafts and listings, each with its status and the one step that moves
 * it on, and the form that drafts a listing from a website (through create_draft).
 */
export const accountListingPages: PageRoutes = (router, services) => {
  router.get('/account/listings', requireUser(services), async function showMyListings(ctx) {
    await listingsPage(ctx, services, {});
  });

  router.post(CREATE_DRAFT_PATH, requireUser(services), async function createDraftFromForm(ctx) {
    const url = formString(formBody(ctx), 'url').trim();
    try {
      const draft = await invokeForPage(ctx, services, createDraftOp, { url });
      ctx.status = 303;
      ctx.redirect(draftPage(draft.id));
    } catch (err) {
      const { status, errors } = refusal(err, 'url');
      await listingsPage(ctx, services, { status, errors, url });
    }
  });

  router.get('/account/drafts/{id}', requireUser(services), async function showDraft(ctx) {
    const draft = await invokeForPage(ctx, services, getDraftOp, { id: draftIdOf(ctx) });
    await draftProgressPage(ctx, services, draft);
  });

  router.post('/account/drafts/{id}', requireUser(services), async function saveDraftFromForm(ctx) {
    const id = draftIdOf(ctx);
    const body = formBody(ctx);
    const draft = await invokeForPage(ctx, services, getDraftOp, { id });
    const changes = draft.status === 'ready' ? draftEdit(draft, body) : {};
    if (Object.keys(changes).length > 0) {
      try {
        await invokeForPage(ctx, services, updateDraftOp, { id, ...changes });
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500 || err.status === 404) throw err;
        const errors = err.errors?.length ? messagesFor(err.errors, draftFieldOf) : { form: err.message };
        return draftProgressPage(ctx, services, draft, { status: err.status, errors, values: body });
      }
    }
    if (body.then === 'submit') return submitFromForm(ctx, services, id);
    ctx.status = 303;
    ctx.redirect(`${draftPage(id)}?notice=draft-saved`);
  });

  router.post('/account/drafts/{id}/submit', requireUser(services), async function submitDraftFromForm(ctx) {
    await submitFromForm(ctx, services, draftIdOf(ctx));
  });
};

/** submit_draft, then the new listing's home; a refusal (already listed: the claim link) on the draft's page. */
async function submitFromForm(ctx: Context, services: WebServices, id: number): Promise<void> {
  let listingId: number;
  try {
    ({ listing_id: listingId } = await invokeForPage(ctx, services, submitDraftOp, { id }));
  } catch (err) {
    const { status, errors } = refusal(err);
    const draft = await invokeForPage(ctx, services, getDraftOp, { id });
    return draftProgressPage(ctx, services, draft, { status, errors, listed: listedCompany(err) });
  }
  ctx.status = 303;
  ctx.redirect(`${ownerPaths.home(listingId)}?notice=draft-submitted`);
}

/** The listing that holds the company, when submit_draft answered already_listed. */
function listedCompany(err: unknown): ListedCompany | undefined {
  if (!(err instanceof AppError) || err.code !== 'already_listed') return undefined;
  const slug = err.extensions.slug;
  return typeof slug === 'string' ? { slug } : undefined;
}

/** The draft id of the path; anything but a positive 32-bit integer is a page that does not exist. */
function draftIdOf(ctx: Context): number {
  const raw = ctx.params.id!;
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound('The draft');
  return Number(raw);
}

interface FormState {
  status?: number;
  errors?: FieldMessages;
  url?: string;
}

async function listingsPage(ctx: Context, services: WebServices, form: FormState): Promise<void> {
  const [drafts, listings, token] = await Promise.all([
    openDrafts(await pageContext(ctx, services), SHOWN),
    invokeForPage(ctx, services, listMyListingsOp, { page: 1, per_page: SHOWN }),
    csrfToken(ctx, services),
  ]);
  const rows = [
    ...drafts.items.map((d) => ({ name: d.name ?? d.url, href: draftPage(d.id), kind: 'draft', step: draftNextStep(d) })),
    ...listings.items.map((l) => ({ name: l.name, href: ownerPaths.home(l.id), kind: 'listing', step: listingNextStep(l) })),
  ];
  await renderPage(ctx, services, {
    title: 'Your listings',
    status: form.status,
    main: html`${errorSummary(form.errors)}
<section aria-labelledby="new-draft">
<h2 id="new-draft">Draft a listing from your website</h2>
${postForm(
  CREATE_DRAFT_PATH,
  token,
  html`${field({ name: 'url', label: 'Website address', type: 'text', value: form.url, error: form.errors?.url, required: true, maxlength: 2048, hint: 'For example example.org or https://example.org/. We read the home page and its about, pricing and FAQ pages, then draft the listing for you to review.', autocomplete: 'url' })}
<button type="submit">Draft my listing</button>`,
)}
</section>
<section aria-labelledby="yours">
<h2 id="yours">Your drafts and listings</h2>
${
  rows.length === 0
    ? html`<p>Nothing yet. Enter your website above and we draft your first listing from it.</p>`
    : html`<table class="stack">
<thead><tr><th scope="col">Name</th><th scope="col">Where it stands</th><th scope="col">Next step</th></tr></thead>
<tbody>${rows.map((r) => html`<tr data-kind="${r.kind}"><td data-label="Name"><a href="${r.href}">${r.name}</a> <span class="muted">(${r.kind})</span></td><td data-label="Where it stands">${r.step.state}</td><td data-label="Next step">${stepAction(r.step, token)}</td></tr>`)}</tbody>
</table>`
}
${
  (drafts.total > SHOWN || listings.total > SHOWN) &&
  html`<p class="muted">This page shows your newest ${SHOWN} drafts and listings.</p>
<aside aria-labelledby="for-developers"><h2 id="for-developers">For developers</h2><p>The API lists all of them: <a href="/docs#list_my_drafts">list_my_drafts</a> and <a href="/docs#list_my_listings">list_my_listings</a>.</p></aside>`
}
</section>`,
  });
}
