import type { Context } from 'koa';
import { badRequest, forbidden, knownError, toProblem } from '../../errors/errors.ts';
import {
  addPasskey,
  deletePasskey,
  passkeyAuthenticationOptions,
  PASSKEY_NAME_MAX,
  passkeyRegistrationOptions,
  verifySessionWithPasskey,
  type Passkey,
} from '../../operations/passkeys.ts';
import { factorStatus } from '../../operations/second-factor.ts';
import { field, postForm, time } from '../components.ts';
import { formBody, formString } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { safeReturnTo } from '../return-to.ts';
import { currentUser, requireUser } from '../session.ts';
import { SECOND_FACTOR_PAGE } from '../staff-factor.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

/**
 * Passkeys on the factor page: the small script runs the browser's WebAuthn ceremony and posts its
 * answer as JSON in a form field (so the pages' one form reader and CSRF check apply); these
 * routes answer JSON, refusals as problem+json. Without JavaScript the sections stay hidden and
 * the code form works as before.
 */

const KEYS = `${SECOND_FACTOR_PAGE}/passkeys`;
const ADD_OPTIONS = `${KEYS}/options`;
const USE = `${SECOND_FACTOR_PAGE}/passkey`;
const USE_OPTIONS = `${USE}/options`;

export const passkeyPages: PageRoutes = (router, services) => {
  router.post(ADD_OPTIONS, requireUser(services), async function passkeyCreationOptions(ctx) {
    await answerJson(ctx, services, async () => {
      const c = await verifiedStaff(ctx, services);
      return passkeyRegistrationOptions(c, (await currentUser(ctx, services))!.email);
    });
  });
  router.post(KEYS, requireUser(services), async function addPasskeyRoute(ctx) {
    await answerJson(ctx, services, async () => {
      const c = await verifiedStaff(ctx, services);
      const body = formBody(ctx);
      const added = await addPasskey(c, formString(body, 'name'), parseCredential(formString(body, 'credential')));
      return { ok: true, name: added.name, redirect: `${SECOND_FACTOR_PAGE}?added=1` };
    });
  });
  router.post(`${KEYS}/{id}/remove`, requireUser(services), async function removePasskeyRoute(ctx) {
    const c = await verifiedStaff(ctx, services);
    await deletePasskey(c, Number(ctx.params.id) || 0);
    ctx.status = 303;
    ctx.redirect(`${SECOND_FACTOR_PAGE}?removed=1`);
  });
  router.post(USE_OPTIONS, requireUser(services), async function passkeyRequestOptions(ctx) {
    await answerJson(ctx, services, async () => {
      const c = await staffContext(ctx, services);
      const options = await passkeyAuthenticationOptions(c);
      if (!options) throw badRequest('passkey_refused', 'You have no passkey yet: use a code from your app.');
      return options;
    });
  });
  router.post(`${USE}/verify`, requireUser(services), async function verifyWithPasskey(ctx) {
    await answerJson(ctx, services, async () => {
      const c = await staffContext(ctx, services);
      const body = formBody(ctx);
      await verifySessionWithPasskey(c, parseCredential(formString(body, 'credential')));
      return { ok: true, redirect: safeReturnTo(body.return_to, '/staff') };
    });
  });
};

async function staffContext(ctx: Context, services: WebServices) {
  const c = await pageContext(ctx, services);
  if (!(await factorStatus(c)).staff) throw forbidden('staff_role_required', 'A second factor is for the site team.');
  return c;
}

/** Adding or removing a passkey needs this session verified with a factor first. */
async function verifiedStaff(ctx: Context, services: WebServices) {
  const c = await pageContext(ctx, services);
  const status = await factorStatus(c);
  if (!status.staff) throw forbidden('staff_role_required', 'A second factor is for the site team.');
  if (!status.session) throw forbidden('staff_role_required', 'Verify this session with your second factor first.');
  return c;
}

function parseCredential(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null; // refused by the domain with a message people can act on
  }
}

/** The result as JSON; an AppError as problem+json with its status (never an HTML page for the script). */
async function answerJson(ctx: Context, services: WebServices, run: () => Promise<unknown>): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  try {
    ctx.body = await run();
    ctx.type = 'application/json';
  } catch (err) {
    if (!knownError(err)) throw err;
    const problem = toProblem(err, services.config.baseUrl, ctx.state.requestId);
    ctx.status = problem.status;
    ctx.type = 'application/problem+json';
    ctx.body = problem;
  }
}

/** The person's passkeys, each with a remove button. */
export function passkeyList(keys: Passkey[], token: string): SafeHtml {
  if (!keys.length) return html`<p>You have no passkey yet.</p>`;
  return html`<ul class="passkeys">${keys.map(
    (k) =>
      html`<li data-passkey-id="${k.id}"><strong>${k.name}</strong> · added ${time(k.createdAt)} · last used ${time(k.lastUsedAt)}
${postForm(`${KEYS}/${k.id}/remove`, token, html`<button type="submit" aria-label="Remove the passkey ${k.name}">Remove</button>`)}</li>`,
  )}</ul>`;
}

/** The "Add a passkey" section (hidden until the script finds WebAuthn in the browser). */
export function addPasskeySection(token: string): SafeHtml {
  return html`<section data-passkey="add" data-options="${ADD_OPTIONS}" hidden aria-labelledby="add-passkey">
<h2 id="add-passkey">Add a passkey</h2>
<p>A passkey lives on this device, your phone or a security key. Name it, press the button, and
your browser asks you to confirm with your fingerprint, face, PIN or by touching the key. Next time,
"Use a passkey" verifies you without typing a code.</p>
${postForm(
  KEYS,
  token,
  html`${field({ name: 'name', label: 'Name of the passkey', hint: 'So you can tell your passkeys apart, such as "Work laptop".', required: true, maxlength: PASSKEY_NAME_MAX })}
<button type="submit">Add a passkey</button>`,
)}
<p role="status" class="passkey-status"></p>
</section>
<noscript><p>Adding a passkey needs JavaScript in your browser. Your authenticator app works without it.</p></noscript>`;
}

/** The "Use a passkey" section of the verification page (hidden until the script finds WebAuthn). */
export function usePasskeySection(token: string, returnTo: string): SafeHtml {
  return html`<section data-passkey="use" data-options="${USE_OPTIONS}" hidden aria-labelledby="use-passkey">
<h2 id="use-passkey">Use a passkey</h2>
<p>Press the button: your browser asks you to confirm with your fingerprint, face, PIN or security
key. If nothing happens, or it says the passkey is unknown, use a code from your app below.</p>
${postForm(USE + '/verify', token, html`<input type="hidden" name="return_to" value="${returnTo}"><button type="submit">Use a passkey</button>`)}
<p role="status" class="passkey-status"></p>
</section>`;
}

/**
 * The browser's half: base64url ↔ ArrayBuffer around navigator.credentials.create/get, the
 * options and the answer through the routes above, and words in the status line when it fails.
 */
export const PASSKEY_SCRIPT = `(function () {
  var box = document.querySelector('[data-passkey]');
  if (!box || !window.PublicKeyCredential || !navigator.credentials) return;
  box.hidden = false;
  var form = box.querySelector('form');
  var status = box.querySelector('.passkey-status');
  function toBuf(s) {
    s = s.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) s += '=';
    var bin = atob(s), a = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) a[i] = bin.charCodeAt(i);
    return a.buffer;
  }
  function fromBuf(buf) {
    var a = new Uint8Array(buf), s = '';
    for (var i = 0; i < a.length; i++) s += String.fromCharCode(a[i]);
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function post(url, fields) {
    return fetch(url, { method: 'POST', credentials: 'same-origin', body: new URLSearchParams(fields) }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) throw new Error(j.detail || 'The server refused the passkey.');
        return j;
      });
    });
  }
  function answer(cred) {
    var r = cred.response, out = { id: cred.id, rawId: fromBuf(cred.rawId), type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults(), response: { clientDataJSON: fromBuf(r.clientDataJSON) } };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = fromBuf(r.attestationObject);
      out.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      out.response.authenticatorData = fromBuf(r.authenticatorData);
      out.response.signature = fromBuf(r.signature);
      if (r.userHandle) out.response.userHandle = fromBuf(r.userHandle);
    }
    return out;
  }
  function ceremony(o) {
    o.challenge = toBuf(o.challenge);
    if (o.user) o.user.id = toBuf(o.user.id);
    (o.excludeCredentials || o.allowCredentials || []).forEach(function (c) { c.id = toBuf(c.id); });
    return box.dataset.passkey === 'add' ? navigator.credentials.create({ publicKey: o }) : navigator.credentials.get({ publicKey: o });
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var fields = new URLSearchParams(new FormData(form));
    status.textContent = 'Waiting for your passkey…';
    post(box.dataset.options, { _csrf: fields.get('_csrf') })
      .then(ceremony)
      .then(function (cred) {
        if (!cred) throw new Error('No passkey was chosen.');
        fields.set('credential', JSON.stringify(answer(cred)));
        return post(form.action, fields);
      })
      .then(function (done) { status.textContent = 'Done.'; location.assign(done.redirect); })
      .catch(function (err) {
        status.textContent = (err && err.name === 'NotAllowedError' ? 'The passkey was not used (cancelled or timed out).' : err.message) +
          ' Try again, or use a code from your authenticator app.';
      });
  });
})();`;
