import type { Context } from 'koa';
import { z } from 'zod';
import type { ClaimView } from '../../domain/claims/claims.ts';
import { AppError, notFound } from '../../errors/errors.ts';
import { resendClaimLinkFor } from '../../operations/claim-links.ts';
import { claimListingOp, listMyClaimsOp, verifyClaimOp } from '../../operations/claims.ts';
import { CLAIM_METHODS, claimTarget, emailClaimRefusal } from '../../operations/read-models/claims.ts';
import { field, postForm, time } from '../components.ts';
import { pager } from '../content.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString, parseForm, type FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { renderFormPage, renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import { COPY_SCRIPT } from './api-keys.ts';
import type { PageRoutes } from './page-routes.ts';
import { pageNumber } from './updates.ts';

const PATH = '/account/claims';
const PER_PAGE = 20;

/** Fixed messages after the forms of this page (never text from the URL). */
const NOTICES = new Map([
  ['started', 'Your claim is started. Publish what it says below; we keep checking on our own.'],
  ['checked', 'Checked just now: see the result below.'],
  ['verified', 'Verified: the listing is yours now.'],
  ['wait', 'That claim was checked moments ago; try again in a few seconds.'],
  ['resent', 'We mailed the link again.'],
]);

const METHOD_LABELS: Record<(typeof CLAIM_METHODS)[number], string> = {
  dns: 'DNS: add a TXT record to the domain',
  meta: 'Meta tag: add a tag to the homepage’s <head>',
  file: 'File: publish a small text file on the website',
  email: 'Email: get a link at an address of the company’s domain',
};

const ClaimForm = z.object({
  slug: z.string().min(1).max(200),
  method: z.enum(CLAIM_METHODS, { error: 'Choose how to verify' }),
  email: z.preprocess((v) => (v === '' ? undefined : v), z.email('Enter an email address').max(254).optional()),
});

/** The claimant's pages: their claims with instructions, starting a claim, Check now, re-send. */
export const claimPages: PageRoutes = (router, services) => {
  router.get(PATH, requireUser(services), async function showClaims(ctx) {
    const page = pageNumber(ctx.query.page);
    const list = await invokeForPage(ctx, services, listMyClaimsOp, { page, per_page: PER_PAGE });
    const token = await csrfToken(ctx, services);
    await renderPage(ctx, services, {
      title: 'Your claims',
      notice: typeof ctx.query.notice === 'string' ? NOTICES.get(ctx.query.notice) : undefined,
      main: html`${
        list.items.length === 0
          ? html`<p>No claims${page > 1 ? ' on this page' : html` yet. Open the page of your company’s listing and choose “Claim it”`}.</p>`
          : html`<span role="status" aria-live="polite" id="copy-status" class="visually-hidden"></span>
<ol class="feed">${list.items.map((c) => html`<li>${claimCard(c, token)}</li>`)}</ol>`
      }
${pager(PATH, page, PER_PAGE, list.total)}`,
      script: COPY_SCRIPT,
    });
  });

  router.get(`${PATH}/new`, requireUser(services), async function showClaimForm(ctx) {
    await claimForm(ctx, services, { slug: typeof ctx.query.slug === 'string' ? ctx.query.slug : '' }, undefined, 200);
  });

  router.post(PATH, requireUser(services), async function submitClaim(ctx) {
    const body = formBody(ctx);
    const values = { slug: formString(body, 'slug'), method: formString(body, 'method'), email: formString(body, 'email') };
    const form = parseForm(ClaimForm, body);
    if (!form.ok) return claimForm(ctx, services, values, form.errors, 400);
    // The form shows the email field whatever the method; claim_listing takes it for method email only.
    const { slug, method, email } = form.data;
    try {
      await invokeForPage(ctx, services, claimListingOp, method === 'email' ? { slug, method, email } : { slug, method });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const errors = Object.fromEntries((err.errors ?? [{ path: 'form', message: err.message }]).map((e) => [e.path, e.message]));
      return claimForm(ctx, services, values, errors, err.status);
    }
    ctx.status = 303;
    ctx.redirect(`${PATH}?notice=started`);
  });

  router.post(`${PATH}/{id}/check`, requireUser(services), async function checkNow(ctx) {
    const id = claimId(ctx);
    let notice = 'checked';
    try {
      const claim = await invokeForPage(ctx, services, verifyClaimOp, { claim_id: id });
      if (claim.status === 'verified') notice = 'verified';
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 429) throw err;
      notice = 'wait';
    }
    ctx.status = 303;
    ctx.redirect(`${PATH}?notice=${notice}#claim-${id}`);
  });

  router.post(`${PATH}/{id}/resend`, requireUser(services), async function resendLink(ctx) {
    await resendClaimLinkFor(await pageContext(ctx, services), claimId(ctx));
    ctx.status = 303;
    ctx.redirect(`${PATH}?notice=resent`);
  });
};

function claimId(ctx: Context): number {
  const id = String(ctx.params.id);
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) throw notFound('The claim');
  return Number(id);
}

function claimCard(c: ClaimView, token: string): SafeHtml {
  const pending = c.status === 'pending';
  return html`<article id="claim-${c.id}" data-claim="${c.id}" data-status="${c.status}" aria-labelledby="claim-${c.id}-title">
<h2 id="claim-${c.id}-title"><a href="/listings/${c.slug}">${c.listing_name}</a></h2>
<p>Status: <strong>${c.status}</strong> · by ${c.method} · started ${time(c.created_at)}${pending ? html` · expires ${time(c.expires_at)}` : ''}</p>
${pending && html`<p>${c.instructions.text}</p>${instructionValues(c)}`}
${c.decision && html`<p class="decision" data-decision="${c.decision.outcome}">The site team ${c.decision.outcome} this claim on ${time(c.decision.decided_at)}. Their reason: “${c.decision.reason}”</p>`}
${c.last_check && html`<p class="last-check" data-result="${c.last_check.result}">Last check ${time(c.last_check.checked_at)}: <strong>${c.last_check.result.replace('_', ' ')}</strong> — ${c.last_check.detail}</p>`}
${pending && c.method !== 'email' && postForm(`${PATH}/${c.id}/check`, token, html`<button type="submit">Check now<span class="visually-hidden"> (${c.listing_name})</span></button>`)}
${pending && c.method === 'email' && postForm(`${PATH}/${c.id}/resend`, token, html`<button type="submit" class="secondary">Send the link again</button>`)}
</article>`;
}

/** The values to publish, each with a copy button. */
function instructionValues(c: ClaimView): SafeHtml {
  const i = c.instructions;
  const rows: [string, string][] = i.record
    ? [
        ['Type', 'TXT'],
        ['Name', i.record.name],
        ['Value', i.record.value],
      ]
    : i.meta
      ? [['Tag', i.meta.html]]
      : i.file
        ? [
            ['URL', i.file.url],
            ['Content', i.file.content],
          ]
        : [];
  return html`${rows.map(([label, value], n) => {
    const id = `claim-${c.id}-v${n}`;
    return html`<div class="secret"><span>${label}:</span> <code id="${id}">${value}</code>${label === 'Type' ? '' : html`<button type="button" class="secondary" data-copy="${id}" hidden>Copy<span class="visually-hidden"> ${label}</span></button>`}</div>`;
  })}`;
}

async function claimForm(
  ctx: Context,
  services: WebServices,
  values: { slug: string; method?: string; email?: string },
  errors: FieldMessages | undefined,
  status: number,
) {
  const listing = await claimTarget(await pageContext(ctx, services), values.slug);
  await renderFormPage(ctx, services, {
    title: `Claim ${listing.name}`,
    status,
    errors,
    intro: html`<p>Prove that ${listing.url} is your company’s. Once verified, the listing is yours to edit; verified is not a paid plan.</p>`,
    action: PATH,
    fields: html`<input type="hidden" name="slug" value="${values.slug}">
<fieldset id="f-method"><legend>How do you want to verify?</legend>
${errors?.method && html`<p class="error">${errors.method}</p>`}
${CLAIM_METHODS.map((m) => html`<label class="check"><input type="radio" name="method" value="${m}"${values.method === m ? html` checked` : ''}> ${METHOD_LABELS[m]}</label>`)}
</fieldset>
${field({ name: 'email', label: 'Email address (email only)', type: 'email', value: values.email ?? '', error: errors?.email, hint: emailClaimRefusal(listing.url) ?? 'An address at the company’s own domain.', autocomplete: 'email' })}
<button type="submit">Start the claim</button>`,
  });
}
