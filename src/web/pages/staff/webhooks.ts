import { STATUS_CODES } from 'node:http';
import type { Context } from 'koa';
import type { z } from 'zod';
import { notFound } from '../../../errors/errors.ts';
import { staffGetWebhookEndpointOp, staffListWebhookHealthOp } from '../../../operations/staff-webhooks.ts';
import { WEBHOOK_EVENT_WORDS } from '../../../operations/webhooks.ts';
import { time } from '../../components.ts';
import { html, type SafeHtml } from '../../html.ts';
import { invokeForPage, pageContext } from '../../invoke.ts';
import { renderPage } from '../../render.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';

const PATH = '/staff/webhooks';
type Endpoint = z.output<typeof staffListWebhookHealthOp.output>['items'][number];
type Failure = Endpoint['last_errors'][number];
const DAY_MS = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Owners' webhook addresses that fail, in sentences support can read out to the owner. */
export const staffWebhookPages: PageRoutes = (router, services) => {
  router.get(PATH, requireStaff(services, ['admin', 'support']), async function webhookHealth(ctx) {
    const { items } = await invokeForPage(ctx, services, staffListWebhookHealthOp, {});
    const now = (await pageContext(ctx, services)).clock.now();
    await renderPage(ctx, services, {
      title: 'Webhooks that fail',
      main: html`<p><a href="/staff">Site team</a></p>
<p>Owners’ webhook addresses on this site that fail or are turned off, those failing longest first. Only the start of each address is shown: the rest often holds a password.</p>
${items.length ? html`<ul class="webhook-health" data-endpoints="${items.length}">${items.map((e) => endpointItem(e, now))}</ul>` : html`<p role="status" data-endpoints="0">Every webhook address on this site works.</p>`}`,
    });
  });

  router.get(`${PATH}/{id}`, requireStaff(services, ['admin', 'support']), async function webhookEndpoint(ctx) {
    const endpoint = await invokeForPage(ctx, services, staffGetWebhookEndpointOp, { endpoint_id: endpointId(ctx) });
    const now = (await pageContext(ctx, services)).clock.now();
    await renderPage(ctx, services, {
      title: `Webhook address at ${endpoint.host}`,
      main: html`<p><a href="${PATH}">Back to the webhooks that fail</a></p>
<p data-summary>${summary(endpoint, now)}</p>
<dl class="facts">
<dt>Address</dt><dd><code>${endpoint.masked_url}</code></dd>
<dt>Owner</dt><dd>${endpoint.owner_email}</dd>
<dt>Sends</dt><dd>${endpoint.events.map((t) => WEBHOOK_EVENT_WORDS[t]).join('; ')}</dd>
<dt>Last success</dt><dd>${time(endpoint.last_success_at)}</dd>
<dt>Added</dt><dd>${time(endpoint.created_at)}</dd>
</dl>
<h2>Latest errors</h2>
${endpoint.last_errors.length ? html`<ul data-errors>${endpoint.last_errors.map((f) => html`<li>${answerText(f)}, ${time(f.at)}</li>`)}</ul>` : html`<p>No failed tries.</p>`}
<h2>Latest deliveries</h2>
${deliveriesTable(endpoint.deliveries)}`,
    });
  });
};

function endpointId(ctx: Context): number {
  const id = ctx.params.id ?? '';
  if (!/^[1-9]\d{0,9}$/.test(id)) throw notFound('The webhook address');
  return Number(id);
}

function endpointItem(e: Endpoint, now: Date): SafeHtml {
  return html`<li data-endpoint="${e.id}"><h2><a href="${PATH}/${e.id}">${e.host}</a> <span class="muted">for ${e.owner_email}</span></h2>
<p>${summary(e, now)}</p>
${e.last_errors.length ? html`<p>Latest errors:</p><ul>${e.last_errors.map((f) => html`<li>${answerText(f)}, ${time(f.at)}</li>`)}</ul>` : ''}</li>`;
}

/** The endpoint's state in sentences: failures since when, the last answer, turned off when and why. */
function summary(e: Endpoint, now: Date): string {
  const parts: string[] = [];
  const last = e.last_errors[0];
  if (e.failures_in_a_row > 0) {
    const times = e.failures_in_a_row === 1 ? 'once' : `${e.failures_in_a_row} times`;
    const since = e.failing_since ?? last?.at;
    parts.push(
      `This address has failed ${times}${since ? ` since ${sinceText(new Date(since), now)}` : ''}${last ? `; the last answer was ${answerText(last)}` : ''}.`,
    );
  } else if (e.enabled) parts.push('This address works again: its last try succeeded.');
  if (!e.enabled && e.disabled_at) {
    const on = sinceText(new Date(e.disabled_at), now);
    parts.push(
      e.disabled_reason === 'failing'
        ? `We turned it off ${on === 'today' ? 'today' : `on ${on}`} after 3 days of failures; the owner was told by mail.`
        : `The owner turned it off ${on === 'today' ? 'today' : `on ${on}`}.`,
    );
  }
  return parts.join(' ');
}

/** `502 Bad Gateway`, or what happened when there was no answer. */
function answerText(f: Pick<Failure, 'status_code' | 'error'>): string {
  if (f.status_code !== null) return `${f.status_code} ${STATUS_CODES[f.status_code] ?? ''}`.trim();
  return `no answer (${(f.error ?? 'the request failed').replace(/\.$/, '')})`;
}

/** `today`, a weekday within the last week, or a date. */
function sinceText(at: Date, now: Date): string {
  const day = (d: Date) => Math.floor(d.getTime() / DAY_MS);
  const days = day(now) - day(at);
  if (days <= 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days < 7) return WEEKDAYS[at.getUTCDay()]!;
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}${at.getUTCFullYear() === now.getUTCFullYear() ? '' : ` ${at.getUTCFullYear()}`}`;
}

const DELIVERY_WORDS = { pending: 'Still trying', succeeded: 'Delivered', failed: 'Given up' } as const;

function deliveriesTable(items: z.output<typeof staffGetWebhookEndpointOp.output>['deliveries']): SafeHtml {
  if (!items.length) return html`<p>No deliveries yet.</p>`;
  return html`<table class="stack"><thead><tr><th scope="col">Event</th><th scope="col">Outcome</th><th scope="col">Tries</th><th scope="col">Last answer</th><th scope="col">Last try</th><th scope="col">Next try</th></tr></thead>
<tbody>${items.map(
    (d) =>
      html`<tr data-delivery="${d.id}"><td data-label="Event">${WEBHOOK_EVENT_WORDS[d.event_type]}</td><td data-label="Outcome">${DELIVERY_WORDS[d.status]}</td><td data-label="Tries">${d.attempts}</td><td data-label="Last answer">${d.attempts ? answerText({ status_code: d.last_status_code, error: d.last_error }) : '—'}</td><td data-label="Last try">${time(d.last_attempt_at)}</td><td data-label="Next try">${time(d.next_attempt_at, 'none planned')}</td></tr>`,
  )}</tbody></table>`;
}
