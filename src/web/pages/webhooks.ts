import type { Context } from 'koa';
import { z } from 'zod';
import { notFound } from '../../errors/errors.ts';
import { parseId } from '../../operations/schemas.ts';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENT_WORDS,
  createWebhookEndpointOp,
  deleteWebhookEndpointOp,
  listWebhookDeliveriesOp,
  listWebhookEndpointsOp,
  redeliverWebhookOp,
  rotateWebhookSecretOp,
  updateWebhookEndpointOp,
} from '../../operations/webhooks.ts';
import { errorSummary, field, postForm, time } from '../components.ts';
import { clearCookie, setCookie } from '../cookies.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString, parseForm, type FieldMessages } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, maxLengthOf } from '../invoke.ts';
import { refusal } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import { secureCookies, type WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { COPY_SCRIPT } from './api-keys.ts';

const PAGE = '/account/webhooks';
const REVEAL_COOKIE = 'ld_new_webhook_secret';
/** Deliveries shown per endpoint. */
const RECENT = 5;

const DONE = new Map([
  ['on', 'The endpoint is on: new events are sent to it again.'],
  ['off', 'The endpoint is off: we send it nothing until you turn it on.'],
  ['deleted', 'The endpoint is deleted. We send it nothing from now on.'],
  ['resent', 'We are sending that event again now.'],
]);

const NewEndpointForm = z.object({
  url: z.string({ error: 'Give the address we should send events to.' }).trim().min(1, 'Give the address we should send events to.'),
  description: z.string().trim().optional(),
  events: z.preprocess(
    (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]),
    z.array(z.enum(WEBHOOK_EVENT_TYPES, { error: 'Choose events from the list.' })).min(1, 'Choose at least one event.'),
  ),
});

/** /account/webhooks: the owner's webhook endpoints (add, turn on or off, new secret, delete) and their recent deliveries. */
export const webhookPages: PageRoutes = (router, services) => {
  router.get(PAGE, requireUser(services), async function showWebhooks(ctx) {
    await webhooksPage(ctx, services, { status: 200, created: await takeNewSecret(ctx, services) });
  });

  router.post(PAGE, requireUser(services), async function addEndpoint(ctx) {
    const body = formBody(ctx);
    const values = { url: formString(body, 'url'), description: formString(body, 'description'), events: checked(body.events) };
    const form = parseForm(NewEndpointForm, body);
    if (!form.ok) return webhooksPage(ctx, services, { status: 400, errors: form.errors, values });
    try {
      const { description, ...rest } = form.data;
      const created = await invokeForPage(ctx, services, createWebhookEndpointOp, { ...rest, ...(description ? { description } : {}) });
      revealSecret(ctx, services, created.id, created.secret);
    } catch (err) {
      const { status, errors } = refusal(err, 'url');
      return webhooksPage(ctx, services, { status, errors, values });
    }
    ctx.status = 303;
    ctx.redirect(PAGE);
  });

  router.post(`${PAGE}/{id}/enabled`, requireUser(services), async function turnOnOrOff(ctx) {
    const enabled = formString(formBody(ctx), 'enabled') === 'true';
    await invokeForPage(ctx, services, updateWebhookEndpointOp, { endpoint_id: endpointId(ctx), enabled });
    ctx.status = 303;
    ctx.redirect(`${PAGE}?done=${enabled ? 'on' : 'off'}`);
  });

  router.post(`${PAGE}/{id}/rotate`, requireUser(services), async function newSecret(ctx) {
    const rotated = await invokeForPage(ctx, services, rotateWebhookSecretOp, { endpoint_id: endpointId(ctx) });
    revealSecret(ctx, services, rotated.id, rotated.secret);
    ctx.status = 303;
    ctx.redirect(PAGE);
  });

  router.get(`${PAGE}/{id}/delete`, requireUser(services), async function confirmDelete(ctx) {
    const id = endpointId(ctx);
    const { items } = await invokeForPage(ctx, services, listWebhookEndpointsOp, {});
    const endpoint = items.find((e) => e.id === id);
    if (!endpoint) throw notFound('The endpoint');
    await renderPage(ctx, services, {
      title: 'Delete this webhook endpoint?',
      main: html`<p>We stop sending events to <code class="url">${endpoint.url}</code> at once, and its delivery history goes with it.
This cannot be undone; you can add the address again later, with a new secret.</p>
${postForm(`${PAGE}/${id}/delete`, await csrfToken(ctx, services), html`<button type="submit">Delete endpoint</button> <a href="${PAGE}">Cancel</a>`)}`,
    });
  });

  router.post(`${PAGE}/{id}/delete`, requireUser(services), async function deleteEndpoint(ctx) {
    await invokeForPage(ctx, services, deleteWebhookEndpointOp, { endpoint_id: endpointId(ctx) });
    ctx.status = 303;
    ctx.redirect(`${PAGE}?done=deleted`);
  });

  router.post(`${PAGE}/{id}/deliveries/{deliveryId}/redeliver`, requireUser(services), async function resend(ctx) {
    const deliveryId = parseId(ctx.params.deliveryId);
    if (!deliveryId) throw notFound('The delivery');
    await invokeForPage(ctx, services, redeliverWebhookOp, { endpoint_id: endpointId(ctx), delivery_id: deliveryId });
    ctx.status = 303;
    ctx.redirect(`${PAGE}?done=resent`);
  });
};

function endpointId(ctx: Context): number {
  const id = parseId(ctx.params.id);
  if (!id) throw notFound('The endpoint');
  return id;
}

const checked = (value: unknown): string[] => (value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)]);

/** Redirect-after-POST: the secret rides in a short-lived cookie that the next view shows once and clears. */
function revealSecret(ctx: Context, services: WebServices, id: number, secret: string) {
  setCookie(ctx, REVEAL_COOKIE, `${id}:${secret}`, { maxAgeSeconds: 300, secure: secureCookies(services) });
}

async function takeNewSecret(ctx: Context, services: WebServices): Promise<{ id: number; secret: string } | undefined> {
  const value = ctx.cookies.get(REVEAL_COOKIE);
  if (value === undefined) return undefined;
  clearCookie(ctx, REVEAL_COOKIE, { secure: secureCookies(services) });
  const match = /^(\d+):(whsec_[A-Za-z0-9+/=]+)$/.exec(value);
  return match ? { id: Number(match[1]), secret: match[2]! } : undefined;
}

interface WebhooksView {
  status: number;
  errors?: FieldMessages;
  values?: { url: string; description: string; events: string[] };
  created?: { id: number; secret: string };
}

type Endpoint = z.output<typeof listWebhookEndpointsOp.output>['items'][number];
type Delivery = z.output<typeof listWebhookDeliveriesOp.output>['items'][number];

async function webhooksPage(ctx: Context, services: WebServices, view: WebhooksView) {
  const token = await csrfToken(ctx, services);
  const endpoints = (await invokeForPage(ctx, services, listWebhookEndpointsOp, {})).items;
  const deliveries = await Promise.all(
    endpoints.map(
      async (e) => (await invokeForPage(ctx, services, listWebhookDeliveriesOp, { endpoint_id: e.id, page: 1, per_page: RECENT })).items,
    ),
  );
  const created = view.created && endpoints.find((e) => e.id === view.created!.id) ? view.created : undefined;
  const done = typeof ctx.query.done === 'string' ? DONE.get(ctx.query.done) : undefined;
  await renderPage(ctx, services, {
    title: 'Webhooks',
    status: view.status,
    notice: done,
    script: created ? COPY_SCRIPT : undefined,
    main: html`${created && secretPanel(created.secret)}
<p>We can tell your own server when something happens to your listings and orders: a launch week is set, a listing goes live,
our badge goes missing, votes reach a milestone, a week closes, an order is paid, delivered or refunded, a claim is verified,
or you post an update. Each event is sent to the addresses you add here, signed with the address’s secret so your server can
check it came from us. If your server does not answer, we try again for 3 days; an address that fails that long is turned off
and we tell you.</p>
<h2>Your endpoints</h2>
${endpoints.length === 0 ? html`<p>No endpoints yet.</p>` : endpoints.map((e, i) => endpointSection(e, deliveries[i]!, token))}
<h2 id="add-endpoint">Add an endpoint</h2>
${errorSummary(view.errors)}
${postForm(
  PAGE,
  token,
  html`${field({
    name: 'url',
    label: 'Address',
    value: view.values?.url ?? '',
    error: view.errors?.url,
    hint: 'A public https address of your server, e.g. https://example.com/hooks/listings.',
    required: true,
    maxlength: maxLengthOf(createWebhookEndpointOp, 'url'),
  })}
${field({
  name: 'description',
  label: 'Description (optional)',
  value: view.values?.description ?? '',
  error: view.errors?.description,
  hint: 'What it is for, so you recognise it later.',
  maxlength: maxLengthOf(createWebhookEndpointOp, 'description'),
})}
<fieldset${view.errors?.events ? html` aria-describedby="f-events-error"` : ''}>
<legend id="f-events">Events to send</legend>
${view.errors?.events && html`<p class="error" id="f-events-error">${view.errors.events}</p>`}
${WEBHOOK_EVENT_TYPES.map(
  (type) =>
    html`<label class="check"><input type="checkbox" name="events" value="${type}"${view.values?.events.includes(type) ? html` checked` : ''}> <span>${WEBHOOK_EVENT_WORDS[type]}</span></label>`,
)}
</fieldset>
<button type="submit">Add endpoint</button>`,
)}
${developerNotes()}`,
  });
}

function secretPanel(secret: string): SafeHtml {
  return html`<section aria-labelledby="new-secret-title">
<h2 id="new-secret-title">The endpoint’s signing secret</h2>
<p><strong>Copy it now</strong> into your server’s settings. We show it only this once; if you lose it, make a new one.</p>
<div class="secret"><code id="new-secret">${secret}</code>
<button type="button" data-copy="new-secret" hidden>Copy</button>
<span role="status" aria-live="polite" id="copy-status"></span></div>
</section>`;
}

function endpointState(e: Endpoint): string {
  if (e.enabled) return e.failing_since ? `On, but failing since ${new Date(e.failing_since).toUTCString()}.` : 'On.';
  return e.disabled_reason === 'failing' ? 'Off: we turned it off after 3 days without a successful delivery.' : 'Off: you turned it off.';
}

function deliveryState(d: Delivery): string {
  if (d.status === 'succeeded') return 'Delivered.';
  if (d.status === 'failed') return 'Not delivered: we gave up.';
  return d.attempts === 0 ? 'Waiting to be sent.' : 'Not delivered yet: we will try again.';
}

function lastAnswer(d: { last_status_code: number | null; last_error: string | null; attempts: number }): string {
  if (d.attempts === 0) return 'none yet';
  if (d.last_status_code !== null) return `status ${d.last_status_code}`;
  return d.last_error ?? 'no answer';
}

function endpointSection(e: Endpoint, recent: Delivery[], token: string): SafeHtml {
  const name = e.description ?? `Endpoint ${e.id}`;
  return html`<section class="endpoint" aria-labelledby="endpoint-${e.id}" data-endpoint-id="${e.id}">
<h3 id="endpoint-${e.id}">${name}</h3>
<dl class="facts">
<dt>Address</dt><dd><code>${e.url}</code></dd>
<dt>State</dt><dd>${endpointState(e)}</dd>
<dt>Events</dt><dd>${e.events.map((t) => WEBHOOK_EVENT_WORDS[t]).join('; ')}.</dd>
<dt>Added</dt><dd>${time(e.created_at)}</dd>
</dl>
<div class="actions">
${postForm(
  `${PAGE}/${e.id}/enabled`,
  token,
  html`<input type="hidden" name="enabled" value="${e.enabled ? 'false' : 'true'}"><button type="submit" aria-label="${e.enabled ? 'Turn off' : 'Turn on'} ${name}">${e.enabled ? 'Turn off' : 'Turn on'}</button>`,
  'inline',
)}
${postForm(`${PAGE}/${e.id}/rotate`, token, html`<button type="submit" aria-label="New secret for ${name}">New secret</button>`, 'inline')}
<a href="${PAGE}/${e.id}/delete" aria-label="Delete ${name}">Delete</a>
</div>
<h4>Recent deliveries</h4>
${
  recent.length === 0
    ? html`<p>Nothing sent yet.</p>`
    : html`<table class="stack">
<thead><tr><th scope="col">Event</th><th scope="col">Outcome</th><th scope="col">Tries</th><th scope="col">Last answer</th><th scope="col">Next try</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${recent.map(
        (d) => html`<tr data-delivery-id="${d.id}">
<td>${WEBHOOK_EVENT_WORDS[d.event_type]}<br><span class="muted">${time(d.created_at)}</span></td>
<td data-label="Outcome">${deliveryState(d)}</td>
<td data-label="Tries">${d.attempts}</td>
<td data-label="Last answer">${lastAnswer(d)}</td>
<td data-label="Next try">${d.next_attempt_at ? time(d.next_attempt_at) : 'none planned'}</td>
<td>${
          e.enabled
            ? postForm(
                `${PAGE}/${e.id}/deliveries/${d.id}/redeliver`,
                token,
                html`<button type="submit" class="link" aria-label="Send again: ${WEBHOOK_EVENT_WORDS[d.event_type]}">Send again</button>`,
                'inline',
              )
            : html`<span class="muted">Turn the endpoint on to send again</span>`
        }</td>
</tr>`,
      )}</tbody></table>`
}
</section>`;
}

function developerNotes(): SafeHtml {
  return html`<aside aria-labelledby="webhooks-dev">
<h2 id="webhooks-dev">For developers</h2>
<p>Each event is a POST of JSON <code>{"type", "created_at", "data"}</code>, signed per Standard Webhooks: headers
<code>webhook-id</code> (the same on every try), <code>webhook-timestamp</code> and <code>webhook-signature</code>
(<code>v1,</code> and an HMAC-SHA256 in base64). Verify it with the <code>standardwebhooks</code> library and the secret.
Answer with a 2xx status within 10 seconds. Scripts and agents manage endpoints with the operations
<code>create_webhook_endpoint</code>, <code>list_webhook_endpoints</code>, <code>update_webhook_endpoint</code>,
<code>delete_webhook_endpoint</code>, <code>rotate_webhook_secret</code>, <code>list_webhook_deliveries</code> and
<code>redeliver_webhook</code> (scopes <code>webhooks:write</code> and <code>account:read</code>), see the <a href="/docs">API reference</a>.</p>
</aside>`;
}
