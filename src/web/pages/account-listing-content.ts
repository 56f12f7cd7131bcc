import type { Context } from 'koa';
import { notFound } from '../../errors/errors.ts';
import { getMyListingOp } from '../../operations/listings.ts';
import { addMilestoneOp, deleteMilestoneOp } from '../../operations/milestones.ts';
import { myListingUpdates } from '../../operations/read-models/listing-updates.ts';
import { LIMITS, parseId } from '../../operations/schemas.ts';
import { postListingUpdateOp } from '../../operations/updates.ts';
import { attr, errorSummary, field, labelled, postForm, time } from '../components.ts';
import { day, externalLink, pager, textBlocks } from '../content.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { humanMessage } from '../listing-fields.ts';
import { ownerPaths } from '../next-steps.ts';
import { refusal, textArea } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { listingIdOf } from './account-listing-home.ts';
import type { PageRoutes } from './page-routes.ts';

const UPDATES_PER_PAGE = 10;

const NOTICES: Record<string, string> = {
  posted: 'Your update is posted. Your followers hear about it by email and in their notifications.',
  added: 'The milestone is added.',
  deleted: 'The milestone is deleted.',
};

interface FormState {
  status: number;
  errors?: FieldMessages;
  values?: Record<string, string>;
}

/** A refusal's messages in words for people (zod's defaults rewritten). */
function readable(err: unknown): { status: number; errors: FieldMessages } {
  const { status, errors } = refusal(err);
  return { status, errors: Object.fromEntries(Object.entries(errors).map(([k, m]) => [k, humanMessage(m)])) };
}

/**
 * The owner's updates of one listing (post one, read those posted) and its milestones (add,
 * delete), through post_listing_update, add_milestone and delete_milestone.
 */
export const accountListingContentPages: PageRoutes = (router, services) => {
  router.get('/account/listings/{listing_id}/updates', requireUser(services), async function showListingUpdates(ctx) {
    await updatesPage(ctx, services, { status: 200 });
  });

  router.post('/account/listings/{listing_id}/updates', requireUser(services), async function postUpdateFromForm(ctx) {
    const listingId = listingIdOf(ctx);
    const body = formBody(ctx);
    const values = { title: formString(body, 'title'), body: formString(body, 'body') };
    try {
      await invokeForPage(ctx, services, postListingUpdateOp, { listing_id: listingId, ...values });
    } catch (err) {
      return updatesPage(ctx, services, { ...readable(err), values });
    }
    ctx.status = 303;
    ctx.redirect(`${ownerPaths.updates(listingId)}?notice=posted`);
  });

  router.get('/account/listings/{listing_id}/milestones', requireUser(services), async function showMilestones(ctx) {
    await milestonesPage(ctx, services, { status: 200 });
  });

  router.post('/account/listings/{listing_id}/milestones', requireUser(services), async function addMilestoneFromForm(ctx) {
    const listingId = listingIdOf(ctx);
    const body = formBody(ctx);
    const values = Object.fromEntries(['date', 'title', 'description', 'url'].map((n) => [n, formString(body, n).trim()]));
    try {
      await invokeForPage(ctx, services, addMilestoneOp, {
        listing_id: listingId,
        date: values.date!,
        title: values.title!,
        description: values.description || null,
        url: values.url || null,
      });
    } catch (err) {
      return milestonesPage(ctx, services, { ...readable(err), values });
    }
    ctx.status = 303;
    ctx.redirect(`${ownerPaths.milestones(listingId)}?notice=added`);
  });

  router.post(
    '/account/listings/{listing_id}/milestones/{milestone_id}/delete',
    requireUser(services),
    async function deleteMilestoneFromForm(ctx) {
      const listingId = listingIdOf(ctx);
      const milestoneId = parseId(ctx.params.milestone_id);
      if (!milestoneId) throw notFound('The milestone');
      await invokeForPage(ctx, services, deleteMilestoneOp, { listing_id: listingId, milestone_id: milestoneId });
      ctx.status = 303;
      ctx.redirect(`${ownerPaths.milestones(listingId)}?notice=deleted`);
    },
  );
};

function pageNumber(ctx: Context): number {
  const raw = ctx.query.page;
  return typeof raw === 'string' && /^[1-9]\d{0,4}$/.test(raw) ? Number(raw) : 1;
}

async function updatesPage(ctx: Context, services: WebServices, form: FormState): Promise<void> {
  const listingId = listingIdOf(ctx);
  // Another owner's listing is "not found", the same as through the API.
  const listing = await invokeForPage(ctx, services, getMyListingOp, { listing_id: listingId });
  const pageNo = pageNumber(ctx);
  const [updates, token] = await Promise.all([
    myListingUpdates(await pageContext(ctx, services), listingId, pageNo, UPDATES_PER_PAGE),
    csrfToken(ctx, services),
  ]);
  await renderPage(ctx, services, {
    title: `Updates: ${listing.name}`,
    status: form.status,
    notice: form.status === 200 && typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined,
    main: html`<p><a href="${ownerPaths.home(listing.id)}">Back to ${listing.name}</a></p>
${errorSummary(form.errors)}
<section aria-labelledby="post-title">
<h2 id="post-title">Post an update</h2>
${postForm(
  ownerPaths.updates(listing.id),
  token,
  html`<p class="hint">Published at once. People who follow ${listing.name} (${listing.follower_count}) get it by email and in their notifications${listing.status === 'live' ? ', and it shows in the site’s latest updates' : '; it shows in the site’s latest updates once the listing is live'}.</p>
${field({ name: 'title', label: 'Title', value: form.values?.title, error: form.errors?.title, required: true, maxlength: LIMITS.updateTitle })}
${textArea({ name: 'body', label: 'What is new', value: form.values?.body, error: form.errors?.body, rows: 8, maxlength: LIMITS.updateBody, hint: 'Plain text; a blank line starts a new paragraph.' })}
<button type="submit">Post update</button>`,
)}
</section>
<section aria-labelledby="posted-title">
<h2 id="posted-title">Posted updates</h2>
${
  updates.items.length === 0
    ? html`<p>No updates yet.</p>`
    : html`<ol class="feed updates">${updates.items.map(
        (u) => html`<li data-update="${u.id}"><h3>${u.title}</h3><p class="muted">${time(u.published_at)}</p>${textBlocks(u.body)}</li>`,
      )}</ol>`
}
${pager(ownerPaths.updates(listing.id), pageNo, UPDATES_PER_PAGE, updates.total)}
</section>
<aside aria-labelledby="for-developers"><h2 id="for-developers">For developers</h2>
<p>The form calls <a href="/docs#post_listing_update">post_listing_update</a>.</p></aside>`,
  });
}

async function milestonesPage(ctx: Context, services: WebServices, form: FormState): Promise<void> {
  const listingId = listingIdOf(ctx);
  const listing = await invokeForPage(ctx, services, getMyListingOp, { listing_id: listingId });
  const token = await csrfToken(ctx, services);
  const shownPublicly = listing.plan === 'paid' || listing.unlocked_sections.includes('milestones');
  await renderPage(ctx, services, {
    title: `Milestones: ${listing.name}`,
    status: form.status,
    notice: form.status === 200 && typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined,
    main: html`<p><a href="${ownerPaths.home(listing.id)}">Back to ${listing.name}</a></p>
${errorSummary(form.errors)}
<p>${shownPublicly ? 'Milestones show on your public listing page.' : html`Only you see milestones for now: they show publicly on paid listings, or once the milestones section is unlocked (<a href="${ownerPaths.promote(listing.id)}">Promote</a>).`}</p>
<section aria-labelledby="add-title">
<h2 id="add-title">Add a milestone</h2>
${postForm(
  ownerPaths.milestones(listing.id),
  token,
  html`${labelled(
    { name: 'date', label: 'Date', error: form.errors?.date, hint: 'The day it happened, such as 2026-03-14.' },
    (id, described) =>
      html`<input id="${id}" name="date" type="date" value="${form.values?.date ?? ''}" required${attr('aria-describedby', described)}${form.errors?.date ? html` aria-invalid="true"` : ''}>`,
  )}
${field({ name: 'title', label: 'Title', value: form.values?.title, error: form.errors?.title, required: true, maxlength: 120 })}
${textArea({ name: 'description', label: 'Description (optional)', value: form.values?.description, error: form.errors?.description, rows: 3, maxlength: 1000 })}
${field({ name: 'url', label: 'Link (optional)', value: form.values?.url, error: form.errors?.url, maxlength: 2048, hint: 'An https address, such as the announcement.', autocomplete: 'url' })}
<button type="submit">Add milestone</button>`,
)}
</section>
<section aria-labelledby="list-title">
<h2 id="list-title">Milestones</h2>
${
  listing.milestones.length === 0
    ? html`<p>No milestones yet.</p>`
    : html`<ul class="milestones">${listing.milestones.map(
        (
          m,
        ) => html`<li data-milestone="${m.id}">${day(m.date)} <strong>${m.title}</strong>${m.description && html` — ${m.description}`}${m.url && html` (${externalLink(m.url, 'link')})`}
${postForm(`${ownerPaths.milestones(listing.id)}/${m.id}/delete`, token, html`<button class="link" type="submit">Delete<span class="visually-hidden"> the milestone ${m.title}</span></button>`, 'inline')}</li>`,
      )}</ul>`
}
</section>
<aside aria-labelledby="for-developers"><h2 id="for-developers">For developers</h2>
<p>These forms call <a href="/docs#add_milestone">add_milestone</a> and <a href="/docs#delete_milestone">delete_milestone</a>.</p></aside>`,
  });
}
