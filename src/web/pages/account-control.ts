import type { Context } from 'koa';
import { changeEmailOp, changePasswordOp, endOtherSessionsOp, endSessionOp, listSessionsOp } from '../../operations/account.ts';
import { requestAccountExportOp } from '../../operations/account-exports.ts';
import { listSignInIdentitiesOp } from '../../operations/sign-in-identities.ts';
import { errorSummary, field, newPasswordField, postForm, time } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { takeFlash, redirectWithFlash, type Flash } from '../flash.ts';
import { formBody, formString } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { refusal } from '../owner-forms.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

/**
 * The account's own controls on /account (docs/accounts.md): sessions and devices, email,
 * password, export, and the way to deletion. Each form is the operation of the same name.
 */

/** Fixed notices the forms' redirects name (never text from the URL). */
const NOTICES: Record<string, string> = {
  'session-ended': 'That session is signed out.',
  'others-ended': 'Every other session is signed out.',
  'email-pending': 'We mailed a link to the new address. Your address changes when it is opened; we told your current address too.',
  'password-set': 'Your password is changed. Every other session is signed out.',
  'export-asked': 'We are preparing your archive and will mail you a link to download it.',
};

const noticeOf = (ctx: Context) => (typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined);

/** The sessions, email, password, export and delete sections of /account. */
export async function accountControlSections(ctx: Context, services: WebServices): Promise<SafeHtml> {
  const [sessions, signIns, token] = await Promise.all([
    invokeForPage(ctx, services, listSessionsOp, {}),
    invokeForPage(ctx, services, listSignInIdentitiesOp, {}),
    csrfToken(ctx, services),
  ]);
  const flash = takeFlash(ctx, services);
  const errors = (form: string) => (flash?.form === form ? flash.errors : undefined);
  const notice = noticeOf(ctx);
  return html`${notice && html`<p role="status" class="notice">${notice}</p>`}
<section aria-labelledby="sessions">
<h2 id="sessions">Sessions and devices</h2>
${errorSummary(errors('sessions'))}
<table class="stack"><thead><tr><th scope="col">Device</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${sessions.items.map(
    (
      s,
    ) => html`<tr><td data-label="Device">${s.device}${s.current && html` <strong>(this session)</strong>`}</td><td data-label="Signed in">${time(s.created_at)}</td><td data-label="Last seen">${time(s.last_seen_at)}</td>
<td>${s.current ? '' : postForm(`/account/sessions/${s.id}/end`, token, html`<button type="submit" class="secondary">Sign out<span class="visually-hidden"> ${s.device}, signed in ${s.created_at.slice(0, 16)}</span></button>`)}</td></tr>`,
  )}</tbody></table>
${sessions.items.length > 1 && postForm('/account/sessions/end-others', token, html`<button type="submit">Sign out every other session</button>`)}
</section>
<section aria-labelledby="email">
<h2 id="email">Email address</h2>
${errorSummary(errors('email'))}
${postForm(
  '/account/email',
  token,
  html`${field({ name: 'email', label: 'New email address', type: 'email', autocomplete: 'email', required: true, maxlength: 254, error: errors('email')?.email, hint: 'We mail a link there; nothing changes until it is opened.' })}
<button type="submit">Change email</button>`,
)}
</section>
<section aria-labelledby="password">
<h2 id="password">Password</h2>
${errorSummary(errors('password'))}
${postForm(
  '/account/password',
  token,
  html`${field({ name: 'current_password', label: 'Current password', type: 'password', autocomplete: 'current-password', error: errors('password')?.current_password, hint: signIns.has_password ? undefined : 'Your account has no password yet: leave this empty within 10 minutes of signing in.' })}
${newPasswordField({ label: 'New password', error: errors('password')?.password, hint: 'At least 10 characters. Other sessions are signed out.' })}
<button type="submit">Change password</button>`,
)}
</section>
<section aria-labelledby="your-data">
<h2 id="your-data">Your data</h2>
<p>Download everything we hold about you as one JSON file: we prepare it and mail you a link.</p>
${postForm('/account/export', token, html`<button type="submit">Export my data</button>`)}
<p><a href="/account/delete">Delete your account</a> — what stays and what goes is explained there.</p>
</section>`;
}

/** Runs a form's operation; a refusal goes back to /account with its messages beside the form. */
async function submit(ctx: Context, services: WebServices, form: string, run: () => Promise<unknown>, notice: string): Promise<void> {
  try {
    await run();
  } catch (err) {
    const { errors } = refusal(err, form === 'password' ? 'current_password' : form === 'email' ? 'email' : 'form');
    const flash: Flash = { form, errors: renamePasswordField(errors) };
    return redirectWithFlash(ctx, services, `/account#${form}`, flash);
  }
  ctx.status = 303;
  ctx.redirect(`/account?notice=${notice}#${form}`);
}

/** The operation calls the new password `new_password`; the page's field is `password` (the shared component). */
const renamePasswordField = (errors: Record<string, string>) =>
  Object.fromEntries(Object.entries(errors).map(([k, v]) => [k === 'new_password' ? 'password' : k, v]));

export const accountControlPages: PageRoutes = (router, services) => {
  router.post('/account/sessions/end-others', requireUser(services), async function endOthers(ctx) {
    await submit(ctx, services, 'sessions', () => invokeForPage(ctx, services, endOtherSessionsOp, {}), 'others-ended');
  });
  router.post('/account/sessions/{id}/end', requireUser(services), async function endOne(ctx) {
    // Another person's session is 404, as through the API.
    await invokeForPage(ctx, services, endSessionOp, { id: String(ctx.params.id) });
    ctx.status = 303;
    ctx.redirect('/account?notice=session-ended#sessions');
  });
  router.post('/account/email', requireUser(services), async function changeEmail(ctx) {
    const email = formString(formBody(ctx), 'email');
    await submit(ctx, services, 'email', () => invokeForPage(ctx, services, changeEmailOp, { email }), 'email-pending');
  });
  router.post('/account/password', requireUser(services), async function changePassword(ctx) {
    const body = formBody(ctx);
    const current = formString(body, 'current_password');
    const input = { new_password: formString(body, 'password'), ...(current ? { current_password: current } : {}) };
    await submit(ctx, services, 'password', () => invokeForPage(ctx, services, changePasswordOp, input), 'password-set');
  });
  router.post('/account/export', requireUser(services), async function askExport(ctx) {
    await submit(ctx, services, 'your-data', () => invokeForPage(ctx, services, requestAccountExportOp, {}), 'export-asked');
  });
};
