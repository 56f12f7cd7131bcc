import type { Context } from 'koa';
import { z } from 'zod';
import { peekToken } from '../../auth/account-tokens.ts';
import { requestPasswordReset, resetPassword, verifyEmail } from '../../auth/accounts.ts';
import { PASSWORD_MIN_LENGTH } from '../../auth/passwords.ts';
import { field, newPasswordField } from '../components.ts';
import { EmailField, NewPasswordField } from '../form-schemas.ts';
import { formBody, formString, parseForm, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { renderFormPage, renderPage } from '../render.ts';
import { startSession } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { checkYourMail } from './sign-up.ts';

const ForgotForm = z.object({ email: EmailField });
const ResetForm = z.object({ password: NewPasswordField });

/** The pages behind the links we mail: email verification and password reset. */
export const emailLinkPages: PageRoutes = (router, services) => {
  // A plain GET uses the link up: verifying is harmless even when a mail scanner opens it first.
  router.get('/verify-email', async function openVerifyLink(ctx) {
    if (!(await verifyEmail(services.db, queryToken(ctx)))) return deadLink(ctx, services, 'verify');
    ctx.redirect('/signin?notice=verified');
  });

  router.get('/forgot-password', async function showForgot(ctx) {
    await forgotForm(ctx, services, '', undefined, 200);
  });

  router.post('/forgot-password', async function submitForgot(ctx) {
    const body = formBody(ctx);
    const form = parseForm(ForgotForm, body);
    if (!form.ok) return forgotForm(ctx, services, formString(body, 'email'), form.errors, 400);
    await requestPasswordReset(services.db, services.config.baseUrl, form.data.email);
    await checkYourMail(ctx, services, form.data.email, 'to choose a new password. The link works for 1 hour.');
  });

  // Showing the form does not use the link up; only choosing the password does.
  router.get('/reset-password', async function showReset(ctx) {
    const token = queryToken(ctx);
    if (!(await peekToken(services.db, token, 'reset_password'))) return deadLink(ctx, services, 'reset');
    await resetForm(ctx, services, token, undefined, 200);
  });

  router.post('/reset-password', async function submitReset(ctx) {
    const body = formBody(ctx);
    const token = formString(body, 'token');
    const form = parseForm(ResetForm, body);
    if (!form.ok) return resetForm(ctx, services, token, form.errors, 400);
    const userId = await resetPassword(services.db, token, form.data.password);
    if (!userId) return deadLink(ctx, services, 'reset');
    await startSession(ctx, services, userId);
    ctx.status = 303;
    ctx.redirect('/account?notice=password-changed');
  });
};

const queryToken = (ctx: Context) => (typeof ctx.query.token === 'string' ? ctx.query.token : '');

async function deadLink(ctx: Context, services: WebServices, kind: 'verify' | 'reset') {
  await renderPage(ctx, services, {
    title: 'This link does not work',
    status: 400,
    main: html`<p>The link is incomplete, was used already, or has expired.</p>
${
  kind === 'verify'
    ? html`<p>Sign in with your password and we send a new confirmation link, or <a href="/signup">sign up again</a>.</p>`
    : html`<p><a href="/forgot-password">Ask for a new reset link</a>.</p>`
}`,
  });
}

async function forgotForm(ctx: Context, services: WebServices, email: string, errors: FieldMessages | undefined, status: number) {
  await renderFormPage(ctx, services, {
    title: 'Forgot your password?',
    status,
    errors,
    intro: html`<p>Enter the address of your account and we mail you a link to choose a new password.</p>`,
    action: '/forgot-password',
    fields: html`${field({ name: 'email', label: 'Email address', type: 'email', value: email, error: errors?.email, autocomplete: 'email', required: true })}
<button type="submit">Send the link</button>`,
  });
}

async function resetForm(ctx: Context, services: WebServices, resetToken: string, errors: FieldMessages | undefined, status: number) {
  await renderFormPage(ctx, services, {
    title: 'Choose a new password',
    status,
    errors,
    intro: html`<p>Saving it signs out every other session and disconnects the apps connected with OAuth.
Your <a href="/account/keys">API keys</a> stay valid: revoke any you no longer trust.</p>`,
    action: '/reset-password',
    fields: html`<input type="hidden" name="token" value="${resetToken}">
${newPasswordField({
  label: 'New password',
  error: errors?.password,
  hint: `At least ${PASSWORD_MIN_LENGTH} characters. Every other session of your account is signed out.`,
})}
<button type="submit">Save the new password</button>`,
  });
}
