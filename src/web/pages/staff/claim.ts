import type { Context } from 'koa';
import type { z } from 'zod';
import { notFound } from '../../../errors/errors.ts';
import { DECISION_REASON_MAX, staffDecideClaimOp, staffGetClaimOp, staffRecheckClaimOp } from '../../../operations/staff-claims.ts';
import { errorSummary, postForm, time } from '../../components.ts';
import { csrfToken } from '../../csrf.ts';
import { formBody, formString, type FieldMessages } from '../../forms.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { refusal } from '../../owner-forms.ts';
import { renderPage } from '../../render.ts';
import type { WebServices } from '../../web-services.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';
import { ageWords, CLAIM_STATUS_WORDS, CLAIMS_PATH, METHOD_WORDS } from './claims.ts';

type StaffClaim = z.output<typeof staffGetClaimOp.output>;
type Decision = 'approve' | 'reject';

/** Fixed notices after this page's forms (never text from the URL). */
const NOTICES = new Map([
  ['rechecked', 'Checked just now: the newest check is at the bottom of the list.'],
  ['approve', 'Approved: the claimant owns the listing now and was mailed your reason.'],
  ['reject', 'Rejected: the claimant was mailed your reason.'],
]);

/**
 * One claim for the site team: every check made, "Check now", and approve or reject with a reason
 * the claimant reads; a second page names what the decision does, and only its button decides.
 * Not money, so no fresh second factor is asked for (the console's own gate stands).
 */
export const staffClaimPage: PageRoutes = (router, services) => {
  router.get(`${CLAIMS_PATH}/{id}`, requireStaff(services, ['admin', 'support']), async function staffClaim(ctx) {
    await claimPage(ctx, services, await loadClaim(ctx, services));
  });

  router.post(`${CLAIMS_PATH}/{id}/recheck`, requireStaff(services, ['admin', 'support']), async function recheckClaim(ctx) {
    const claim_id = claimId(ctx);
    try {
      await invokeForPage(ctx, services, staffRecheckClaimOp, { claim_id });
    } catch (err) {
      const refused = refusal(err);
      return claimPage(ctx, services, await loadClaim(ctx, services), refused.status, refused.errors);
    }
    ctx.status = 303;
    ctx.redirect(`${CLAIMS_PATH}/${claim_id}?done=rechecked`);
  });

  router.post(`${CLAIMS_PATH}/{id}/decision`, requireStaff(services, ['admin', 'support']), async function decideClaim(ctx) {
    const claim_id = claimId(ctx);
    const body = formBody(ctx);
    const decision = formString(body, 'decision');
    if (decision !== 'approve' && decision !== 'reject') throw notFound('The decision');
    const reason = formString(body, 'reason').trim();
    const problem = !reason
      ? 'Say why: the claimant reads the reason.'
      : reason.length > DECISION_REASON_MAX
        ? `Keep the reason to ${DECISION_REASON_MAX} characters.`
        : null;
    if (problem) return claimPage(ctx, services, await loadClaim(ctx, services), 422, { [`${decision}-reason`]: problem });
    if (formString(body, 'confirm') !== 'yes') return confirmPage(ctx, services, await loadClaim(ctx, services), decision, reason);
    try {
      await invokeForPage(ctx, services, staffDecideClaimOp, { claim_id, decision, reason });
    } catch (err) {
      const refused = refusal(err);
      return claimPage(ctx, services, await loadClaim(ctx, services), refused.status, refused.errors);
    }
    ctx.status = 303;
    ctx.redirect(`${CLAIMS_PATH}/${claim_id}?done=${decision}`);
  });
};

function claimId(ctx: Context): number {
  const id = ctx.params.id ?? '';
  if (!/^[1-9]\d{0,9}$/.test(id) || Number(id) > 2_147_483_647) throw notFound('The claim');
  return Number(id);
}

const loadClaim = (ctx: Context, services: WebServices) => invokeForPage(ctx, services, staffGetClaimOp, { claim_id: claimId(ctx) });

async function claimPage(ctx: Context, services: WebServices, c: StaffClaim, status?: number, errors?: FieldMessages) {
  const token = await csrfToken(ctx, services);
  const done = typeof ctx.query.done === 'string' ? NOTICES.get(ctx.query.done) : undefined;
  await renderPage(ctx, services, {
    title: `Claim ${c.id}: ${c.listing_name}`,
    status,
    notice: errors ? undefined : done,
    main: html`<p><a href="${CLAIMS_PATH}">All claims</a></p>
${errorSummary(errors)}
<dl class="facts">
<dt>Status</dt><dd data-claim-status="${c.status}">${CLAIM_STATUS_WORDS[c.status]}</dd>
<dt>Listing</dt><dd><a href="/listings/${c.slug}">${c.listing_name}</a></dd>
<dt>Claimant</dt><dd data-claimant>${c.claimant_email}</dd>
<dt>Proof by</dt><dd>${METHOD_WORDS[c.method] ?? c.method}</dd>
<dt>Made</dt><dd>${time(c.created_at)} (${ageWords(c.age_seconds)} ago)</dd>
<dt>${c.status === 'pending' ? 'Expires' : 'Closed'}</dt><dd>${c.status === 'pending' ? time(c.expires_at) : time(c.closed_at, '—')}</dd>
<dt>Its workflow</dt><dd><code>${c.workflow_id}</code></dd>
</dl>
${c.decision && html`<p class="decision" data-decision="${c.decision.outcome}">${c.decision.outcome === 'approved' ? 'Approved' : 'Rejected'} by ${c.decided_by ?? 'the command line'} on ${time(c.decision.decided_at)}. Reason given to the claimant: “${c.decision.reason}”</p>`}
<h2>What the claimant was asked to do</h2>
<p>${c.looks_for}</p>
<h2>Checks</h2>
${checksList(c)}
${c.status === 'pending' ? actions(c, token, errors) : ''}`,
  });
}

function checksList(c: StaffClaim): SafeHtml {
  if (!c.checks.length) return html`<p data-checks="0">Not checked yet.</p>`;
  return html`<ol class="checks" data-checks="${c.checks.length}">${c.checks.map(
    (k) =>
      html`<li data-check-result="${k.result}"><strong>${k.result_words}</strong> · ${k.trigger_words} · ${time(k.checked_at)}<br><span class="muted">${k.detail}</span></li>`,
  )}</ol>`;
}

function actions(c: StaffClaim, token: string, errors: FieldMessages | undefined): SafeHtml {
  const recheck = c.method === 'email' ? 'Restart its workflow (an email claim is proved by its link, not checked)' : 'Check now';
  return html`<h2>Act on it</h2>
${postForm(`${CLAIMS_PATH}/${c.id}/recheck`, token, html`<button type="submit">${recheck}</button>`, 'recheck-form')}
${decisionForm(c, token, 'approve', errors)}
${decisionForm(c, token, 'reject', errors)}`;
}

const LABELS: Record<Decision, { legend: string; button: string }> = {
  approve: { legend: 'Approve: the claimant becomes the owner', button: 'Approve…' },
  reject: { legend: 'Reject: the listing stays as it is', button: 'Reject…' },
};

function decisionForm(c: StaffClaim, token: string, decision: Decision, errors: FieldMessages | undefined): SafeHtml {
  const name = `${decision}-reason`;
  const error = errors?.[name];
  return postForm(
    `${CLAIMS_PATH}/${c.id}/decision`,
    token,
    html`<fieldset><legend>${LABELS[decision].legend}</legend><input type="hidden" name="decision" value="${decision}">
<div class="field"><label for="f-${name}">Reason for the claimant (mailed to them and shown on their claim page)</label>
${error ? html`<p class="error" id="f-${name}-error">${error}</p>` : ''}<textarea id="f-${name}" name="reason" rows="3" required maxlength="${DECISION_REASON_MAX}"${error ? html` aria-invalid="true" aria-describedby="f-${name}-error"` : ''}></textarea></div>
<button type="submit"${decision === 'reject' ? html` class="secondary"` : ''}>${LABELS[decision].button}</button></fieldset>`,
    `decision-form ${decision}-form`,
  );
}

async function confirmPage(ctx: Context, services: WebServices, c: StaffClaim, decision: Decision, reason: string) {
  const effects =
    decision === 'approve'
      ? [
          `${c.claimant_email} becomes the owner of ${c.listing_name}, as if their proof had been found.`,
          'A previous owner, if there is one, is mailed that the listing has a new owner.',
          'Other pending claims on this listing are canceled.',
        ]
      : [`The claim is closed as rejected; ${c.listing_name} stays as it is.`];
  await renderPage(ctx, services, {
    title: `${decision === 'approve' ? 'Approve' : 'Reject'} claim ${c.id} of ${c.listing_name}?`,
    main: html`<ul data-will-do>${effects.map((e) => html`<li>${e}</li>`)}</ul>
<p>${c.claimant_email} is mailed your reason and reads it on their claim page: “${reason}”.</p>
${postForm(
  `${CLAIMS_PATH}/${c.id}/decision`,
  await csrfToken(ctx, services),
  html`<input type="hidden" name="decision" value="${decision}"><input type="hidden" name="reason" value="${reason}"><input type="hidden" name="confirm" value="yes"><button type="submit">${decision === 'approve' ? 'Approve the claim' : 'Reject the claim'}</button> <a href="${CLAIMS_PATH}/${c.id}">Cancel</a>`,
)}`,
  });
}
