import type { Context } from 'koa';
import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from '../../auth/passwords.ts';
import { signUp } from '../../auth/accounts.ts';
import { field, newPasswordField } from '../components.ts';
import { EmailField, NewPasswordField } from '../form-schemas.ts';
import { formBody, formString, parseForm, type FieldMessages } from '../forms.ts';
import { html } from '../html.ts';
import { renderFormPage, renderPage } from '../render.ts';
import { currentUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { providerButtons } from './provider-buttons.ts';

const SignUpForm = z.object({ email: EmailField, password: NewPasswordField });

export const signUpPages: PageRoutes = (router, services) => {
  router.get('/signup', async function showSignUp(ctx) {
    if (await currentUser(ctx, services)) return ctx.redirect('/account');
    await signUpForm(ctx, services, '', undefined, 200);
  });

  router.post('/signup', async function submitSignUp(ctx) {
    const body = formBody(ctx);
    const form = parseForm(SignUpForm, body);
    if (!form.ok) return signUpForm(ctx, services, formString(body, 'email'), form.errors, 400);
    await signUp(services.db, services.config.baseUrl, form.data.email, form.data.password);
    // The same answer whether or not the address already has an account.
    await checkYourMail(ctx, services, form.data.email, 'to confirm your address. The link works for 24 hours.');
  });
};

async function signUpForm(ctx: Context, services: WebServices, email: string, errors: FieldMessages | undefined, status: number) {
  await renderFormPage(ctx, services, {
    title: 'Create your account',
    status,
    errors,
    intro: providerButtons(services),
    action: '/signup',
    fields: html`${field({ name: 'email', label: 'Email address', type: 'email', value: email, error: errors?.email, autocomplete: 'email', required: true })}
${newPasswordField({ label: 'Password', error: errors?.password, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
<button type="submit">Create account</button>`,
    after: html`<p>Already have an account? <a href="/signin">Sign in</a>.</p>`,
  });
}

/** "Check your email", shown after every sign-up and reset request, whatever the address. */
export async function checkYourMail(ctx: Context, services: WebServices, email: string, purpose: string): Promise<void> {
  await renderPage(ctx, services, {
    title: 'Check your email',
    main: html`<p>If <strong>${email}</strong> can receive it, we sent it a link ${purpose}</p>
${services.config.devMailbox && html`<p class="muted">Development: mail is not sent; read it in the <a href="/dev/mailbox">mailbox</a>.</p>`}`,
  });
}
