import type { Context } from 'koa';
import QRCode from 'qrcode';
import { forbidden } from '../../errors/errors.ts';
import { passkeysOf, removeOwnFactors } from '../../operations/passkeys.ts';
import { confirmTotp, enrolmentOf, factorStatus, verifySessionFactor, type FactorStatus } from '../../operations/second-factor.ts';
import { field, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString } from '../forms.ts';
import { html, raw, type SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { safeReturnTo } from '../return-to.ts';
import { currentUser, requireUser } from '../session.ts';
import { requireRecentFactor, requireStaffFactor, SECOND_FACTOR_PAGE } from '../staff-factor.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { addPasskeySection, PASSKEY_SCRIPT, passkeyList, usePasskeySection } from './passkeys.ts';

const CONFIRM = `${SECOND_FACTOR_PAGE}/confirm`;
const VERIFY = `${SECOND_FACTOR_PAGE}/verify`;
const REMOVE_ALL = `${SECOND_FACTOR_PAGE}/remove`;

/**
 * A staff member's second factor: enrol an authenticator app (secret as text beside its QR code,
 * confirmed with a code, then the recovery codes shown once), and verify this session with a
 * code, a recovery code or a passkey before the console opens; once verified, the page lists the
 * person's passkeys (add, remove) and lets them remove every factor of theirs.
 */
export const secondFactorPages: PageRoutes = (router, services) => {
  router.get(SECOND_FACTOR_PAGE, requireUser(services), async function showSecondFactor(ctx) {
    const status = await staffStatus(ctx, services);
    if (!status.enrolled) return enrolPage(ctx, services, {});
    const again = ctx.query.again === '1';
    if (status.session && !again) return managePage(ctx, services, status);
    await verifyPage(ctx, services, { again: again || undefined });
  });

  // Only a verified session may remove factors: a stolen password alone must not take them away.
  router.post(REMOVE_ALL, requireUser(services), async function removeOwnSecondFactors(ctx) {
    const status = await staffStatus(ctx, services);
    if (!status.session) return status.enrolled ? verifyPage(ctx, services, {}) : enrolPage(ctx, services, {});
    await removeOwnFactors(await pageContext(ctx, services));
    ctx.status = 303;
    ctx.redirect(SECOND_FACTOR_PAGE);
  });

  router.post(CONFIRM, requireUser(services), async function confirmSecondFactor(ctx) {
    const status = await staffStatus(ctx, services);
    if (status.enrolled) return verifyPage(ctx, services, {});
    const codes = await confirmTotp(await pageContext(ctx, services), formString(formBody(ctx), 'code'));
    if (!codes) return enrolPage(ctx, services, { status: 400, error: 'That code is not right. Enter the 6 digits your app shows now.' });
    await renderPage(ctx, services, {
      title: 'Your recovery codes',
      main: html`<p role="status" class="notice">Your authenticator app is set up, and this session is verified.</p>
<p>Each code below signs you in once if you lose your phone. Keep them somewhere safe: we show them only now.</p>
<ul class="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><a href="${returnTo(ctx)}">Continue</a></p>`,
    });
  });

  router.post(VERIFY, requireUser(services), async function verifySecondFactor(ctx) {
    const status = await staffStatus(ctx, services);
    if (!status.enrolled) return enrolPage(ctx, services, {});
    const factor = await verifySessionFactor(await pageContext(ctx, services), formString(formBody(ctx), 'code'));
    if (!factor) return verifyPage(ctx, services, { status: 400, error: 'That code is not right, or was used already.' });
    ctx.status = 303;
    ctx.redirect(returnTo(ctx));
  });

  // The smallest pages behind the gates: say whether this session's factor counts (for money actions too).
  router.get(`${SECOND_FACTOR_PAGE}/check`, requireStaffFactor(services), async function checkSecondFactor(ctx) {
    await renderPage(ctx, services, { title: 'Second factor', main: html`<p>This session is verified.</p>` });
  });
  router.get(`${SECOND_FACTOR_PAGE}/check/recent`, requireRecentFactor(services), async function checkRecentFactor(ctx) {
    await renderPage(ctx, services, { title: 'Second factor', main: html`<p>This session was verified in the last 10 minutes.</p>` });
  });
};

async function staffStatus(ctx: Context, services: WebServices) {
  const status = await factorStatus(await pageContext(ctx, services));
  if (!status.staff) throw forbidden('staff_role_required', 'A second factor is for the site team.');
  return status;
}

/** The return_to of the query or the form, made safe; the console by default. */
function returnTo(ctx: Context): string {
  const given = ctx.method === 'POST' ? formBody(ctx).return_to : ctx.query.return_to;
  return safeReturnTo(given, '/staff');
}

const returnField = (ctx: Context): SafeHtml => html`<input type="hidden" name="return_to" value="${returnTo(ctx)}">`;

const codeField = (label: string, hint: string, error?: string) =>
  field({ name: 'code', label, hint, error, autocomplete: 'one-time-code', required: true, maxlength: 20 });

interface FormView {
  status?: number;
  error?: string;
  again?: boolean;
}

async function enrolPage(ctx: Context, services: WebServices, view: FormView) {
  const user = (await currentUser(ctx, services))!;
  const enrolment = (await enrolmentOf(await pageContext(ctx, services), user.email))!;
  const qr = await QRCode.toString(enrolment.uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  const token = await csrfToken(ctx, services);
  await renderPage(ctx, services, {
    title: 'Set up your second factor',
    status: view.status,
    main: html`<p>The site team's pages need a second factor. Add this account to an authenticator app
(any app that reads TOTP codes), by scanning the code or typing the key.</p>
<figure class="qr"><div role="img" aria-label="QR code of your authenticator key">${raw(qr)}</div>
<figcaption>Key: <code class="totp-secret">${groups(enrolment.secret)}</code></figcaption></figure>
${postForm(
  CONFIRM,
  token,
  html`${returnField(ctx)}${codeField('Code from your app', 'The 6 digits your app shows now.', view.error)}
<button type="submit">Confirm</button>`,
)}`,
  });
}

async function verifyPage(ctx: Context, services: WebServices, view: FormView) {
  const token = await csrfToken(ctx, services);
  const hasPasskeys = (await passkeysOf(await pageContext(ctx, services))).length > 0;
  await renderPage(ctx, services, {
    title: 'Confirm it is you',
    status: view.status,
    script: hasPasskeys ? PASSKEY_SCRIPT : undefined,
    main: html`${view.again ? html`<p>Money actions need a code from the last 10 minutes.</p>` : ''}
${hasPasskeys ? usePasskeySection(token, returnTo(ctx)) : ''}
${postForm(
  VERIFY,
  token,
  html`${returnField(ctx)}${codeField('Code', 'The 6 digits your authenticator app shows, or one of your recovery codes.', view.error)}
<button type="submit">Verify</button>`,
)}`,
  });
}

const NOTICES: Record<string, string> = {
  added: 'The passkey is added. Next time, "Use a passkey" verifies you.',
  removed: 'The passkey is removed.',
};

const FACTOR_WORDS: Record<string, string> = { totp: 'a code from your app', recovery_code: 'a recovery code', passkey: 'a passkey' };

/** A verified session's page: how it was verified, the passkeys, and removing every factor. */
async function managePage(ctx: Context, services: WebServices, status: FactorStatus) {
  const token = await csrfToken(ctx, services);
  const keys = await passkeysOf(await pageContext(ctx, services));
  const notice = Object.keys(NOTICES).find((k) => ctx.query[k] === '1');
  await renderPage(ctx, services, {
    title: 'Your second factor',
    notice: notice ? NOTICES[notice] : undefined,
    script: PASSKEY_SCRIPT,
    main: html`<p>This session is verified with ${FACTOR_WORDS[status.session!.factor] ?? status.session!.factor}. Your authenticator app
and your recovery codes keep working beside any passkeys.</p>
<h2>Your passkeys</h2>
${passkeyList(keys, token)}
${addPasskeySection(token)}
<h2>Remove your second factors</h2>
<p>This removes your authenticator app, your recovery codes and your passkeys. The site team's pages then ask you to set up a new factor.</p>
${postForm(REMOVE_ALL, token, html`<button type="submit">Remove all my second factors</button>`)}`,
  });
}

/** The key in groups of four, easier to type; apps ignore the spaces. */
const groups = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();
