import { confirmEmailChangeOp, deleteAccountOp } from '../../operations/account.ts';
import { downloadAccountExportOp } from '../../operations/account-exports.ts';
import { listSignInIdentitiesOp } from '../../operations/sign-in-identities.ts';
import { errorSummary, field, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { redirectWithFlash, takeFlash } from '../flash.ts';
import { formBody, formString } from '../forms.ts';
import { html } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { refusal } from '../owner-forms.ts';
import { renderPage } from '../render.ts';
import { endCurrentSession, requireUser } from '../session.ts';
import type { PageRoutes } from './page-routes.ts';

/**
 * The account pages reached from a mail or on the way out (docs/accounts.md): confirming a new
 * email address, downloading an export, and deleting the account.
 */
export const accountLeavingPages: PageRoutes = (router, services) => {
  // A GET shows a button: mail scanners open links, and the link works once.
  router.get('/account/email/confirm', async function showConfirmEmail(ctx) {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    await renderPage(ctx, services, {
      title: 'Confirm your new email address',
      main: postForm(
        '/account/email/confirm',
        await csrfToken(ctx, services),
        html`<input type="hidden" name="token" value="${token}"><p>Use this address for your account from now on?</p><button type="submit">Confirm the new address</button>`,
      ),
    });
  });
  router.post('/account/email/confirm', async function confirmEmail(ctx) {
    const token = formString(formBody(ctx), 'token');
    try {
      const { email } = await invokeForPage(ctx, services, confirmEmailChangeOp, { token });
      await renderPage(ctx, services, {
        title: 'Email address changed',
        main: html`<p>Your account uses ${email} from now on.</p><p><a href="/account">Your account</a></p>`,
      });
    } catch (err) {
      const { status, errors } = refusal(err);
      await renderPage(ctx, services, {
        title: 'This link no longer works',
        status,
        main: html`<p>${errors.form ?? Object.values(errors)[0]}</p><p><a href="/account#email">Ask for the change again</a></p>`,
      });
    }
  });

  router.get('/account/exports/{id}/download', requireUser(services), async function downloadExport(ctx) {
    const q = ctx.query;
    const archive = await invokeForPage(ctx, services, downloadAccountExportOp, {
      id: Number(ctx.params.id),
      expires: Number(q.expires),
      signature: typeof q.signature === 'string' ? q.signature : '',
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Disposition', `attachment; filename="account-export-${Number(ctx.params.id)}.json"`);
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(archive, null, 2);
  });

  router.get('/account/delete', requireUser(services), async function showDelete(ctx) {
    const { has_password } = await invokeForPage(ctx, services, listSignInIdentitiesOp, {});
    const errors = takeFlash(ctx, services)?.errors;
    await renderPage(ctx, services, {
      title: 'Delete your account',
      status: errors ? 403 : 200,
      main: html`<p>Deleting is for good. What happens:</p>
<ul>
<li>Your listings are unlisted; your drafts, follows, API keys, connected apps, sign-ins and newsletter subscriptions are removed.</li>
<li>Orders and invoices stay, as the law requires, with the billing name, address and VAT number on them; your email is removed.</li>
<li>Your votes stay counted without your name; your comments stay and read “deleted account”.</li>
</ul>
<p><a href="/account#your-data">Export your data first</a> if you want a copy.</p>
${errorSummary(errors)}
${postForm(
  '/account/delete',
  await csrfToken(ctx, services),
  html`${
    has_password
      ? field({
          name: 'password',
          label: 'Your current password',
          type: 'password',
          autocomplete: 'current-password',
          required: true,
          error: errors?.password,
        })
      : html`<p>Your account has no password: sign out and sign in again, then delete within 10 minutes.</p>`
  }
${field({ name: 'confirm', label: 'Type “delete my account” to confirm', required: true, error: errors?.confirm, autocomplete: 'off' })}
<button type="submit" class="danger">Delete my account</button>`,
)}`,
    });
  });
  router.post('/account/delete', requireUser(services), async function deleteIt(ctx) {
    const body = formBody(ctx);
    const password = formString(body, 'password');
    try {
      await invokeForPage(ctx, services, deleteAccountOp, {
        confirm: formString(body, 'confirm') as 'delete my account',
        ...(password ? { password } : {}),
      });
    } catch (err) {
      return redirectWithFlash(ctx, services, '/account/delete', {
        form: 'delete',
        errors: refusal(err, (err as { code?: string }).code === 'wrong_password' ? 'password' : 'form').errors,
      });
    }
    await endCurrentSession(ctx, services);
    await renderPage(ctx, services, {
      title: 'Your account is deleted',
      main: html`<p>Your account is deleted and you are signed out. Thank you for having been here.</p>`,
    });
  });
};
