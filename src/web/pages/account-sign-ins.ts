import type { Context } from 'koa';
import type { SignInProvider } from '../../domain/sign-in/tables.ts';
import { knownError } from '../../errors/errors.ts';
import { listSignInIdentitiesOp, unlinkSignInIdentityOp } from '../../operations/sign-in-identities.ts';
import { postForm, time } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { html } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { RouteScope } from '../../http/router.ts';
import { PROVIDER_LABELS } from './provider-buttons.ts';

const NOTICES: Record<string, string> = {
  'sign-in-linked': 'The provider is linked: you can sign in with it from now on.',
  'sign-in-unlinked': 'The provider is unlinked: it no longer signs in to your account.',
};

/** /account/sign-ins: the providers that sign in to this account; link one, unlink one (never the last way in). */
export function accountSignInPages(router: RouteScope, services: WebServices): void {
  router.get('/account/sign-ins', requireUser(services), async function showSignIns(ctx) {
    await signInsPage(ctx, services);
  });

  router.post('/account/sign-ins/{provider}/unlink', requireUser(services), async function unlinkSignIn(ctx) {
    try {
      await invokeForPage(ctx, services, unlinkSignInIdentityOp, { provider: String(ctx.params.provider) as SignInProvider });
    } catch (err) {
      const known = knownError(err);
      if (known?.code !== 'last_sign_in_method') throw err;
      return signInsPage(ctx, services, { error: known.message, status: 422 });
    }
    ctx.status = 303;
    ctx.redirect('/account/sign-ins?notice=sign-in-unlinked');
  });
}

async function signInsPage(ctx: Context, services: WebServices, refusal?: { error: string; status: number }): Promise<void> {
  const { identities, has_password } = await invokeForPage(ctx, services, listSignInIdentitiesOp, {});
  const token = await csrfToken(ctx, services);
  const linkable = (['github', 'google'] as const).filter(
    (p) => services.config.socialSignIn[p] && !identities.some((i) => i.provider === p),
  );
  await renderPage(ctx, services, {
    title: 'Connected sign-ins',
    status: refusal?.status,
    notice: typeof ctx.query.notice === 'string' ? NOTICES[ctx.query.notice] : undefined,
    main: html`${refusal && html`<div class="error-summary" role="alert"><h2>This sign-in stays</h2><p>${refusal.error}</p></div>`}
<p>Ways to sign in to your account: ${has_password ? 'your email address and password' : 'no password yet'}${identities.length ? html`, and the providers below` : ''}.</p>
${
  identities.length
    ? html`<table class="stack"><thead><tr><th scope="col">Provider</th><th scope="col">Address</th><th scope="col">Linked</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${identities.map(
        (
          i,
        ) => html`<tr><td data-label="Provider">${PROVIDER_LABELS[i.provider]}</td><td data-label="Address">${i.email}</td><td data-label="Linked">${time(i.linked_at)}</td><td data-label="Last used">${time(i.last_used_at)}</td>
<td>${postForm(`/account/sign-ins/${i.provider}/unlink`, token, html`<button type="submit" class="secondary">Unlink<span class="visually-hidden"> ${PROVIDER_LABELS[i.provider]}</span></button>`)}</td></tr>`,
      )}</tbody></table>`
    : html`<p>No provider is linked.</p>`
}
${linkable.map((p) => postForm(`/account/sign-ins/${p}/link`, token, html`<button type="submit">Link ${PROVIDER_LABELS[p]}</button>`))}
${!has_password && html`<p>To sign in without a provider, <a href="/forgot-password">set a password</a> (we mail you a link).</p>`}`,
  });
}
