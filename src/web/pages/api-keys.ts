import type { Context } from 'koa';
import { z } from 'zod';
import { createApiKey, listApiKeys, liveApiKeyOf, revokeApiKey } from '../../auth/api-keys.ts';
import { SCOPES, ScopeSchema, STAFF_SCOPES, type Scope } from '../../auth/scopes.ts';
import { keyStaffScopes } from '../../operations/read-models/staff.ts';
import { pageContext } from '../invoke.ts';
import { requireRecentFactor } from '../staff-factor.ts';
import { notFound } from '../../errors/errors.ts';
import { parseId } from '../../operations/schemas.ts';
import { paths } from '../../lib/paths.ts';
import { errorSummary, field, postForm, time } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString, parseForm, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { renderPage } from '../render.ts';
import { currentUser, requireUser } from '../session.ts';
import { clearCookie, setCookie } from '../cookies.ts';
import { secureCookies, type WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const MAX_ACTIVE_KEYS = 50;

const SCOPE_HELP: Record<Scope, string> = {
  'account:read': 'Read your listings, orders and claims.',
  'account:write':
    'Change your account: sign sessions out, change your email or password, export or delete it (deleting asks for your password again).',
  'listings:write': 'Create drafts, edit listings, post updates, claim listings.',
  'orders:write': 'Price orders and build checkout links (paying stays on our page).',
  'webhooks:write': 'Add, change and remove the web addresses we send your events to.',
  'comments:write': 'Comment, reply, vote on and report comments in your name on listings’ discussions.',
  // Offered only to staff whose roles allow them; choosing one asks for the second factor again.
  'staff:orders': 'Site team: find orders, refund them and replay stuck ones.',
  'staff:claims': 'Site team: recheck, approve and reject ownership claims.',
  'staff:flows': 'Site team: see stuck background work and retry it.',
  'staff:webhooks': 'Site team: see failing webhook endpoints and their errors.',
  'staff:listings': 'Site team: moderate listings, edits and votes.',
  'staff:catalogue': 'Site team: set products, prices, promo codes, paid slots and invoice details.',
  'staff:audit': 'Site team: read and export the staff audit log.',
  'staff:roles': 'Site team: give and take back staff roles.',
};

const NewKeyForm = z.object({
  name: z.string({ error: 'Give the key a name.' }).trim().min(1, 'Give the key a name.').max(100, 'Use at most 100 characters.'),
  // One checkbox arrives as a string, several as an array.
  scopes: z.preprocess(
    (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]),
    z
      .array(z.enum(ScopeSchema.options, { error: 'Choose scopes from the list.' }))
      .min(1, 'Choose at least one scope.')
      .max(ScopeSchema.options.length),
  ),
});

interface NewKey {
  key: string;
  name: string;
  scopes: Scope[];
}

/** The API keys area: create (shown once), list, revoke. */
export const apiKeyPages: PageRoutes = (router, services) => {
  router.get('/account/keys', requireUser(services), async function showKeys(ctx) {
    await keysPage(ctx, services, { status: 200, created: await takeNewKey(ctx, services) });
  });

  router.post('/account/keys', requireUser(services), async function createKey(ctx) {
    const user = (await currentUser(ctx, services))!;
    const body = formBody(ctx);
    const form = parseForm(NewKeyForm, body);
    const values = { name: formString(body, 'name') };
    if (!form.ok) return keysPage(ctx, services, { status: 400, errors: form.errors, values });
    const staffScopes = form.data.scopes.filter(isStaffScope);
    if (staffScopes.length) {
      const allowed = await keyStaffScopes(await pageContext(ctx, services));
      if (staffScopes.some((s) => !allowed.has(s))) {
        return keysPage(ctx, services, { status: 400, errors: { scopes: 'Choose scopes from the list.' }, values });
      }
      // A staff key acts for the site team without a session: made only right after the second factor.
      let verified = false;
      await requireRecentFactor(services)(ctx, async () => {
        verified = true;
      });
      if (!verified) return;
    }
    if ((await listApiKeys(services.db, user.id)).length >= MAX_ACTIVE_KEYS) {
      const errors = { form: `You have ${MAX_ACTIVE_KEYS} active keys, the most we allow. Revoke one first.` };
      return keysPage(ctx, services, { status: 409, errors, values });
    }
    const { key } = await createApiKey(services.db, user.id, form.data.name, [...new Set(form.data.scopes)]);
    // Redirect-after-POST: a reload shows the list, never a second key. The key rides in a
    // short-lived cookie that the next page view shows once and clears.
    setCookie(ctx, REVEAL_COOKIE, key, { maxAgeSeconds: 300, secure: secureCookies(services) });
    ctx.status = 303;
    ctx.redirect(KEYS_PAGE);
  });

  router.get('/account/keys/{id}/revoke', requireUser(services), async function confirmRevoke(ctx) {
    const user = (await currentUser(ctx, services))!;
    const id = parseId(ctx.params.id);
    const key = (await listApiKeys(services.db, user.id)).find((k) => k.id === id);
    if (!key) throw notFound('The key');
    const token = await csrfToken(ctx, services);
    await renderPage(ctx, services, {
      title: `Revoke the key “${key.name}”?`,
      main: html`<p>Scripts and agents that use <code>${key.prefix}…</code> (${key.scopes.join(', ')}) stop working at once.
This cannot be undone; you can create a new key afterwards.</p>
${postForm(paths.revokeApiKey(key.id), token, html`<button type="submit">Revoke key</button> <a href="${KEYS_PAGE}">Cancel</a>`)}`,
    });
  });

  router.post('/account/keys/{id}/revoke', requireUser(services), async function revokeKey(ctx) {
    const user = (await currentUser(ctx, services))!;
    const id = parseId(ctx.params.id);
    // Another person's key, an unknown id and an already revoked key all look the same.
    if (!id || !(await revokeApiKey(services.db, services.caches.apiKeys, user.id, id))) throw notFound('The key');
    ctx.status = 303;
    ctx.redirect(`${KEYS_PAGE}?notice=key-revoked`);
  });
};

const KEYS_PAGE = paths.apiKeys;
const isStaffScope = (s: Scope) => (STAFF_SCOPES as readonly Scope[]).includes(s);
const REVEAL_COOKIE = 'ld_new_key';

/** The key created just before this view, once: the cookie is cleared as it is read. */
async function takeNewKey(ctx: Context, services: WebServices): Promise<NewKey | undefined> {
  const key = ctx.cookies.get(REVEAL_COOKIE);
  if (key === undefined) return undefined;
  clearCookie(ctx, REVEAL_COOKIE, { secure: secureCookies(services) });
  const user = (await currentUser(ctx, services))!;
  const view = await liveApiKeyOf(services.db, user.id, key);
  return view ? { key, name: view.name, scopes: view.scopes } : undefined;
}

interface KeysView {
  status: number;
  errors?: FieldMessages;
  values?: { name: string };
  created?: NewKey;
}

async function keysPage(ctx: Context, services: WebServices, view: KeysView) {
  const user = (await currentUser(ctx, services))!;
  const token = await csrfToken(ctx, services);
  const keys = await listApiKeys(services.db, user.id);
  const staffScopes = await keyStaffScopes(await pageContext(ctx, services));
  const offered = [...SCOPES, ...STAFF_SCOPES.filter((s) => staffScopes.has(s))];
  await renderPage(ctx, services, {
    title: 'API keys',
    status: view.status,
    notice: view.created ? `Key “${view.created.name}” created.` : undefined,
    script: view.created ? COPY_SCRIPT : undefined,
    main: html`${view.created && newKeyPanel(view.created)}
<p>Scripts and AI agents call the <a href="/api/v1/openapi.json">REST API</a> with <code>Authorization: Bearer &lt;key&gt;</code>.
Give each key only the scopes it needs.</p>
<h2>Your keys</h2>
${
  keys.length === 0
    ? html`<p>No keys yet.</p>`
    : html`<table class="stack">
<thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
<tbody>${keys.map(
        (k) => html`<tr data-key-id="${k.id}">
<td>${k.name}<br><code class="muted">${k.prefix}…</code></td>
<td data-label="Scopes">${k.scopes.join(', ')}</td>
<td data-label="Created">${time(k.created_at)}</td>
<td data-label="Last used">${time(k.last_used_at)}</td>
<td><a href="${paths.revokeApiKey(k.id)}" aria-label="Revoke ${k.name}">Revoke</a></td>
</tr>`,
      )}</tbody></table>`
}
<h2>Create a key</h2>
${errorSummary(view.errors)}
${postForm(
  '/account/keys',
  token,
  html`${field({ name: 'name', label: 'Name', value: view.values?.name ?? '', error: view.errors?.name, hint: 'What uses it, e.g. “CI deploy” or “Claude”.', required: true, maxlength: 100 })}
<fieldset${view.errors?.scopes ? html` aria-describedby="f-scopes-error"` : ''}>
<legend id="f-scopes">Scopes</legend>
${view.errors?.scopes && html`<p class="error" id="f-scopes-error">${view.errors.scopes}</p>`}
${staffScopes.size > 0 && html`<p class="hint" id="f-scopes-staff">The site team’s scopes (<code>staff:…</code>) are offered because of your staff role; a key with one is made only after you confirm your second factor.</p>`}
${offered.map(
  (scope) =>
    html`<label class="check"><input type="checkbox" name="scopes" value="${scope}"> <span><code>${scope}</code> — ${SCOPE_HELP[scope]}</span></label>`,
)}
</fieldset>
<button type="submit">Create key</button>`,
)}`,
  });
}

function newKeyPanel(created: NewKey) {
  return html`<section aria-labelledby="new-key-title">
<h2 id="new-key-title">Your new key</h2>
<p><strong>Copy it now.</strong> We keep only a hash of it and cannot show it again.</p>
<div class="secret"><code id="new-key">${created.key}</code>
<button type="button" data-copy="new-key" hidden>Copy</button>
<span role="status" aria-live="polite" id="copy-status"></span></div>
<p>Scopes: ${created.scopes.join(', ')}</p>
</section>`;
}

/** Copy buttons (`data-copy` = id of the text; status in #copy-status): shown only when scripts run; fall back to selecting the text. */
export const COPY_SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const target = document.getElementById(button.dataset.copy);
  const status = document.getElementById('copy-status');
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(target.textContent);
      status.textContent = 'Copied.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
    }
  });
}`;
