import type { Context } from 'koa';
import { z } from 'zod';
import { signIn } from '../../auth/accounts.ts';
import { field, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { EmailField, PasswordAttemptField } from '../form-schemas.ts';
import { formBody, formString, parseForm, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { renderFormPage, renderPage } from '../render.ts';
import { safeReturnTo } from '../return-to.ts';
import { currentUser, endCurrentSession, startSession } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { providerButtons } from './provider-buttons.ts';

const SignInForm = z.object({ email: EmailField, password: PasswordAttemptField });

interface SignInView {
  email: string;
  returnTo: string;
  errors?: FieldMessages;
  status: number;
}

export const signInPages: PageRoutes = (router, services) => {
  router.get('/signin', async function showSignIn(ctx) {
    const returnTo = safeReturnTo(ctx.query.return_to);
    if (await currentUser(ctx, services)) return ctx.redirect(returnTo);
    await signInForm(ctx, services, { email: '', returnTo, status: 200 });
  });

  router.post('/signin', async function submitSignIn(ctx) {
    const body = formBody(ctx);
    const view = { email: formString(body, 'email'), returnTo: safeReturnTo(body.return_to) };
    const form = parseForm(SignInForm, body);
    if (!form.ok) return signInForm(ctx, services, { ...view, errors: form.errors, status: 400 });
    const result = await signIn(services.db, services.config.baseUrl, services.config.signin, {
      ...form.data,
      ip: ctx.ip,
    });
    switch (result.outcome) {
      case 'signed_in':
        await startSession(ctx, services, result.userId);
        ctx.status = 303;
        return ctx.redirect(view.returnTo);
      case 'rate_limited': {
        const minutes = Math.ceil(result.retryAfterSeconds / 60);
        ctx.set('Retry-After', String(result.retryAfterSeconds));
        const message = `Too many failed attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or reset your password.`;
        return signInForm(ctx, services, { ...view, errors: { form: message }, status: 429 });
      }
      case 'unverified':
        return renderPage(ctx, services, {
          title: 'Confirm your email first',
          status: 403,
          main: html`<p>Your password is right, but the address <strong>${form.data.email}</strong> is not confirmed yet.
We sent it a new confirmation link; open it, then sign in.</p>`,
        });
      case 'invalid':
        return signInForm(ctx, services, { ...view, errors: { password: 'Email or password is wrong.' }, status: 422 });
    }
  });

  router.get('/signout', async function showSignOut(ctx) {
    if (!(await currentUser(ctx, services))) return ctx.redirect('/signin');
    const token = await csrfToken(ctx, services);
    await renderPage(ctx, services, {
      title: 'Sign out',
      main: postForm('/signout', token, html`<button type="submit">Sign out</button>`),
    });
  });

  router.post('/signout', async function submitSignOut(ctx) {
    await endCurrentSession(ctx, services);
    ctx.status = 303;
    ctx.redirect('/signin?notice=signed-out');
  });
};

async function signInForm(ctx: Context, services: WebServices, view: SignInView) {
  const keepReturnTo = view.returnTo !== safeReturnTo(undefined);
  await renderFormPage(ctx, services, {
    title: 'Sign in',
    status: view.status,
    errors: view.errors,
    intro: providerButtons(services, view.returnTo),
    action: '/signin',
    fields: html`${keepReturnTo && html`<input type="hidden" name="return_to" value="${view.returnTo}">`}
${field({ name: 'email', label: 'Email address', type: 'email', value: view.email, error: view.errors?.email, autocomplete: 'username', required: true })}
${field({ name: 'password', label: 'Password', type: 'password', error: view.errors?.password, autocomplete: 'current-password', required: true })}
<button type="submit">Sign in</button>`,
    after: html`<p><a href="/forgot-password">Forgot your password?</a></p>
<p>No account yet? <a href="/signup">Create one</a>.</p>`,
  });
}
