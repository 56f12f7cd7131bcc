import type { Context } from 'koa';
import type { z } from 'zod';
import { notFound } from '../../../errors/errors.ts';
import { FLOW_KINDS, staffListStuckFlowsOp, staffRetryFlowOp, type FlowKind } from '../../../operations/staff-flows.ts';
import { errorSummary, postForm, time } from '../../components.ts';
import { csrfToken } from '../../csrf.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage } from '../../invoke.ts';
import { refusal } from '../../owner-forms.ts';
import { renderPage } from '../../render.ts';
import type { WebServices } from '../../web-services.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';
import { ORDERS_PATH } from './orders.ts';

export const FLOWS_PATH = '/staff/flows';
type Stuck = z.output<typeof staffListStuckFlowsOp.output>['items'][number];
const REF = /^[\w:.-]{1,200}$/;

/** What each kind of stuck thing is, in words. */
const WHAT: Record<FlowKind, (ref: string) => string> = {
  draft: (ref) => `The crawl of draft ${ref}`,
  order: (ref) => `Order ${ref}`,
  claim: (ref) => `Ownership claim ${ref}`,
  launch: (ref) => `The launch of listing ${ref}`,
  mail: (ref) => `Mail ${ref}`,
  start: (ref) => `The start of workflow ${ref}`,
};

/**
 * Stuck work, one card each: what, since when, why and the fix in words, a Retry button where a
 * retry is safe (the operation checks it again), its workflow in the Temporal UI.
 */
export const staffFlowPages: PageRoutes = (router, services) => {
  router.get(FLOWS_PATH, requireStaff(services, ['admin', 'support']), async function stuckWork(ctx) {
    await flowsPage(ctx, services);
  });

  router.post(`${FLOWS_PATH}/{kind}/{ref}/retry`, requireStaff(services, ['admin', 'support']), async function retryFlow(ctx) {
    const kind = ctx.params.kind as FlowKind;
    const ref = ctx.params.ref ?? '';
    if (!(FLOW_KINDS as readonly string[]).includes(kind) || !REF.test(ref)) throw notFound('That stuck work');
    try {
      await invokeForPage(ctx, services, staffRetryFlowOp, { kind, ref });
    } catch (err) {
      const refused = refusal(err);
      return flowsPage(ctx, services, { status: refused.status, errors: { form: Object.values(refused.errors).join(' ') } });
    }
    ctx.status = 303;
    ctx.redirect(`${FLOWS_PATH}?retried=${encodeURIComponent(`${kind}:${ref}`)}`);
  });
};

/** The notice after a retry: built from a kind and a ref of the expected shapes, never from free text. */
function retriedNotice(ctx: Context): string | undefined {
  const value = typeof ctx.query.retried === 'string' ? ctx.query.retried : '';
  const at = value.indexOf(':');
  const kind = value.slice(0, at) as FlowKind;
  const ref = value.slice(at + 1);
  if (at < 0 || !(FLOW_KINDS as readonly string[]).includes(kind) || !REF.test(ref)) return undefined;
  return `${WHAT[kind](ref)}: retried. It leaves this list once it has gone through.`;
}

async function flowsPage(ctx: Context, services: WebServices, shown: { status?: number; errors?: Record<string, string> } = {}) {
  const { items } = await invokeForPage(ctx, services, staffListStuckFlowsOp, {});
  const token = await csrfToken(ctx, services);
  await renderPage(ctx, services, {
    title: 'Stuck work',
    status: shown.status,
    notice: shown.errors ? undefined : retriedNotice(ctx),
    main: html`<p><a href="/staff">Site team</a></p>
${errorSummary(shown.errors)}
<p>Drafts, orders, claims, launches and mail that have not moved for longer than they should. Each says why and what fixes it.</p>
${items.length ? html`<ol class="feed" data-stuck-list>${items.map((f) => card(f, token))}</ol>` : html`<p data-nothing-stuck>Nothing is stuck.</p>`}`,
  });
}

function card(f: Stuck, token: string): SafeHtml {
  const id = `stuck-${f.kind}-${f.ref.replace(/[^\w-]/g, '-')}`;
  const what = WHAT[f.kind](f.ref);
  const retry = f.retry_safe
    ? postForm(
        `${FLOWS_PATH}/${f.kind}/${encodeURIComponent(f.ref)}/retry`,
        token,
        html`<button type="submit" aria-describedby="${id}">Retry</button>`,
        'inline',
      )
    : html`<p class="muted">No one-click retry: follow the fix.</p>`;
  return html`<li data-stuck="${f.kind}:${f.ref}"><h2 id="${id}">${f.kind === 'order' ? html`<a href="${ORDERS_PATH}/${f.ref}">${what}</a>` : what}</h2>
<dl class="facts">
<dt>Stuck since</dt><dd>${time(f.since)}</dd>
<dt>Why</dt><dd data-cause>${f.cause}</dd>
<dt>The fix</dt><dd data-fix>${f.fix}</dd>
<dt>Its workflow</dt><dd>${f.temporal_url ? html`<a href="${f.temporal_url}" rel="noopener noreferrer">${f.workflow_id} in the Temporal UI</a>` : html`<span class="muted">none: no workflow owns it</span>`}</dd>
</dl>
${retry}</li>`;
}
