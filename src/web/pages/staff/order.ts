import type { Context } from 'koa';
import type { z } from 'zod';
import { AppError, notFound } from '../../../errors/errors.ts';
import { formatCents, listingText, productName } from '../../../operations/read-models/orders.ts';
import { staffReplayOrderOp } from '../../../operations/staff-flows.ts';
import { staffGetOrderOp, staffRefundOrderLineOp } from '../../../operations/staff-orders.ts';
import { isoWeekLabel, isoWeekStart } from '../../../workflows/contracts/weeks.ts';
import { errorSummary, postForm, time } from '../../components.ts';
import { csrfToken } from '../../csrf.ts';
import { formBody, formString } from '../../forms.ts';
import { refusal } from '../../owner-forms.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage, pageContext } from '../../invoke.ts';
import { renderPage } from '../../render.ts';
import type { WebServices } from '../../web-services.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireRecentFactor } from '../../staff-factor.ts';
import { requireStaff } from './access.ts';
import { ORDERS_PATH, STATUS_WORDS } from './orders.ts';

type StaffOrder = z.output<typeof staffGetOrderOp.output>;
type Line = StaffOrder['lines'][number];
const NUMBER = /^[0-9A-Z-]{1,40}$/;
const REASON_MAX = 500;

/**
 * An order as support sees it, and the refund of one line: the form asks for a reason, a second
 * page says what will end, and only its button refunds (a refund cannot be taken back).
 */
export const staffOrderPage: PageRoutes = (router, services) => {
  router.get(`${ORDERS_PATH}/{number}`, requireStaff(services, ['admin', 'support']), async function staffOrder(ctx) {
    await orderPage(ctx, services, await loadOrder(ctx, services));
  });

  router.post(
    `${ORDERS_PATH}/{number}/lines/{position}/refund`,
    requireStaff(services, ['admin', 'support']),
    requireRecentFactor(services),
    async function refundLine(ctx) {
      const number = orderNumber(ctx);
      const position = Number(ctx.params.position);
      if (!/^\d{1,4}$/.test(ctx.params.position ?? '')) throw notFound('The line');
      const body = formBody(ctx);
      const reason = formString(body, 'reason').trim();
      if (!reason || reason.length > REASON_MAX) {
        const order = await loadOrder(ctx, services);
        const message = reason ? `Keep the reason under ${REASON_MAX} characters.` : 'Say why this line is refunded.';
        return orderPage(ctx, services, order, { status: 400, position, errors: { [`reason-${position}`]: message } });
      }
      if (formString(body, 'confirm') !== 'yes') return confirmPage(ctx, services, await loadOrder(ctx, services), position, reason);
      const done = await invokeForPage(ctx, services, staffRefundOrderLineOp, { number, line: position, reason }).catch(alreadyDone);
      ctx.status = 303;
      ctx.redirect(`${ORDERS_PATH}/${number}?refunded=${done ? position : 'already'}`);
    },
  );

  // A replay cannot charge or refund anything (it fulfils what is paid), so the session's factor is enough.
  router.post(`${ORDERS_PATH}/{number}/replay`, requireStaff(services, ['admin', 'support']), async function replayOrder(ctx) {
    const number = orderNumber(ctx);
    try {
      await invokeForPage(ctx, services, staffReplayOrderOp, { number });
    } catch (err) {
      const refused = refusal(err);
      const order = await loadOrder(ctx, services);
      return orderPage(ctx, services, order, { status: refused.status, errors: { form: Object.values(refused.errors).join(' ') } });
    }
    ctx.status = 303;
    ctx.redirect(`${ORDERS_PATH}/${number}?replayed=1`);
  });
};

/** A second click after the refund went through is not a failure: the page shows it refunded. */
function alreadyDone(err: unknown): null {
  if (err instanceof AppError && err.code === 'already_refunded') return null;
  throw err;
}

function orderNumber(ctx: Context): string {
  const number = (ctx.params.number ?? '').toUpperCase();
  if (!NUMBER.test(number)) throw notFound('The order');
  return number;
}

const loadOrder = (ctx: Context, services: WebServices) => invokeForPage(ctx, services, staffGetOrderOp, { number: orderNumber(ctx) });

const lineName = (l: Line) => `${productName(l.product)}${l.listing_id !== null ? ` for ${listingText(l)}` : ''}`;
const money = (o: StaffOrder, l: Line) => formatCents(l.net_cents + l.vat_cents, o.currency);

interface Shown {
  status?: number;
  position?: number;
  errors?: Record<string, string>;
}

async function orderPage(ctx: Context, services: WebServices, o: StaffOrder, shown: Shown = {}) {
  const token = await csrfToken(ctx, services);
  const refunded = typeof ctx.query.refunded === 'string' ? ctx.query.refunded : undefined;
  const notice =
    ctx.query.replayed === '1'
      ? 'The order is replayed: its lines not fulfilled yet are tried again. Reload to see them fulfilled.'
      : refunded === undefined
        ? undefined
        : refunded === 'already'
          ? 'That line was already refunded.'
          : `Line ${Number(refunded) + 1} is refunded.`;
  await renderPage(ctx, services, {
    title: `Order ${o.number}`,
    status: shown.status,
    notice,
    main: html`<p><a href="${ORDERS_PATH}">Find another order</a></p>
${errorSummary(shown.errors)}
<dl class="facts">
<dt>Status</dt><dd data-order-status="${o.status}">${STATUS_WORDS[o.status] ?? o.status}${o.attention_reason ? html` (${o.attention_reason})` : ''}</dd>
<dt>Buyer</dt><dd data-buyer>${o.email}${o.billing_name ? ` (${o.billing_name})` : ''}</dd>
<dt>Total</dt><dd>${formatCents(o.total_cents, o.currency)}</dd>
<dt>Made</dt><dd>${time(o.created_at)}</dd>
<dt>Paid</dt><dd>${time(o.paid_at, 'not paid')}${o.payment_method ? ` by ${o.payment_method}` : ''}</dd>
<dt>Its workflow</dt><dd><code>${o.workflow_id}</code> · <a href="${o.workflow_url}" rel="noopener noreferrer">open it in the Temporal UI</a></dd>
<dt>Workflow state</dt><dd data-workflow-state="${o.workflow_state}">${WORKFLOW_WORDS[o.workflow_state] ?? o.workflow_state}</dd>
</dl>
${o.stuck ? replayForm(o, token) : ''}
<h2>Lines</h2>
<table class="stack"><thead><tr><th scope="col">Line</th><th scope="col">What</th><th scope="col">Weeks</th><th scope="col">Amount</th><th scope="col">Fulfilled</th><th scope="col">Refund</th></tr></thead>
<tbody>${o.lines.map((l) => lineRow(o, l, token, shown))}</tbody></table>
<h2>Payments</h2>
${o.payments.length ? html`<ul>${o.payments.map((p) => html`<li>${p.type.replaceAll('_', ' ').replaceAll('.', ' ')} from ${p.provider}, ${time(p.received_at)}</li>`)}</ul>` : html`<p>No payment received.</p>`}
<h2>Refunds</h2>
${o.refunds.length ? html`<ul data-refunds>${o.refunds.map((r) => html`<li>${formatCents(r.amount_cents, o.currency)} for ${r.line_position === null ? 'the whole order' : `line ${r.line_position + 1}`}, ${time(r.created_at)}</li>`)}</ul>` : html`<p>No refunds.</p>`}
<h2>Mails to the buyer</h2>
${o.mails.length ? html`<ul data-mails>${o.mails.map(mailItem)}</ul>` : html`<p>No mail about this order.</p>`}`,
  });
}

/** Where the workflow's latest run stands, in words. */
const WORKFLOW_WORDS: Record<string, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  terminated: 'Terminated by hand',
  timed_out: 'Timed out',
  continued_as_new: 'Continued in a new run',
  paused: 'Paused',
  missing: 'Not found in Temporal',
  unknown: 'Unknown: Temporal does not answer',
};

function replayForm(o: StaffOrder, token: string): SafeHtml {
  return html`<section aria-labelledby="replay-h" data-replay><h2 id="replay-h">This order is stuck</h2>
<p>It is paid and not fulfilled. Fix what its status names first, then replay it: the lines not fulfilled yet are tried again. Nothing is charged again.</p>
${postForm(`${ORDERS_PATH}/${o.number}/replay`, token, html`<button type="submit">Replay this order</button>`)}</section>`;
}

function mailItem(m: StaffOrder['mails'][number]): SafeHtml {
  const state = m.sent_at
    ? html`sent ${time(m.sent_at)}`
    : m.given_up
      ? html`<strong>not sent, given up</strong> after ${m.attempts} tries${m.last_error ? ` (${m.last_error})` : ''}`
      : html`not sent yet${m.attempts ? ` (${m.attempts} tries${m.last_error ? `, last: ${m.last_error}` : ''})` : ''}`;
  return html`<li data-mail>“${m.subject}” to ${m.to}, queued ${time(m.queued_at)}: ${state}</li>`;
}

function lineRow(o: StaffOrder, l: Line, token: string, shown: Shown): SafeHtml {
  const errorKey = `reason-${l.position}`;
  const error = shown.errors?.[errorKey];
  const refund = l.refunded_at
    ? html`Refunded ${time(l.refunded_at)}${l.ended.length ? html`<ul class="ended">${l.ended.map((e) => html`<li data-ended>${e.text}</li>`)}</ul>` : ''}`
    : o.paid_at
      ? postForm(
          `${ORDERS_PATH}/${o.number}/lines/${l.position}/refund`,
          token,
          html`<div class="field"><label for="f-${errorKey}">Why refund this line (for the audit log; the buyer does not see it)</label>
${error ? html`<p class="error" id="f-${errorKey}-error">${error}</p>` : ''}<textarea id="f-${errorKey}" name="reason" rows="2" required maxlength="${REASON_MAX}"${error ? html` aria-invalid="true" aria-describedby="f-${errorKey}-error"` : ''}></textarea></div>
<button type="submit">Refund this line…</button>`,
          'refund-form',
        )
      : html`<span class="muted">Not paid</span>`;
  return html`<tr data-line="${l.position}"><td data-label="Line">${l.position + 1}</td><td data-label="What">${lineName(l)}</td><td data-label="Weeks">${l.weeks?.join(', ') || '—'}</td><td data-label="Amount" class="money">${money(o, l)}</td><td data-label="Fulfilled">${time(l.fulfilled_at, 'not yet')}</td><td data-label="Refund">${refund}</td></tr>`;
}

async function confirmPage(ctx: Context, services: WebServices, o: StaffOrder, position: number, reason: string) {
  const line = o.lines.find((l) => l.position === position);
  if (!line) throw notFound('The line');
  const now = (await pageContext(ctx, services)).clock.now();
  await renderPage(ctx, services, {
    title: `Refund line ${position + 1} of order ${o.number}?`,
    main: html`<p>${lineName(line)}: <strong>${money(o, line)}</strong> goes back to ${o.email}.</p>
<p>This ends at once:</p><ul data-will-end>${willEnd(line, isoWeekLabel(isoWeekStart(now))).map((t) => html`<li>${t}</li>`)}</ul>
<p>Your reason: “${reason}”. The buyer gets a mail saying what ended. A refund cannot be taken back.</p>
${postForm(
  `${ORDERS_PATH}/${o.number}/lines/${position}/refund`,
  await csrfToken(ctx, services),
  html`<input type="hidden" name="reason" value="${reason}"><input type="hidden" name="confirm" value="yes"><button type="submit">Refund and end it</button> <a href="${ORDERS_PATH}/${o.number}">Cancel</a>`,
)}`,
  });
}

/** What refunding the line ends, in words, before it is done (the refund's own record says it after). */
function willEnd(l: Line, thisWeek: string): string[] {
  const on = l.listing_id !== null ? ` of ${listingText(l)}` : '';
  switch (l.product) {
    case 'featured': {
      const weeks = (l.weeks ?? []).filter((w) => w >= thisWeek);
      return [
        weeks.length ? `The featured placement${on} in ${weeks.join(', ')}` : `Nothing featured is left to end${on}: its weeks are past.`,
      ];
    }
    case 'categories':
      return [`The category placements${on}`];
    case 'billboard':
      return [`The billboard days${on} from today on`];
    case 'launch':
      return [`The paid launch${on}, if it is not live yet (a live launch stays)`];
    default:
      return [`What the line unlocked${on}, unless another paid line keeps it`];
  }
}
