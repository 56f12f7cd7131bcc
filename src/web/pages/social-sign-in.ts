import type { Context } from 'koa';
import { createSocialProviders, type SocialProvider } from '../../auth/social/providers.ts';
import type { SignInProvider } from '../../domain/sign-in/tables.ts';
import { beginSignIn, confirmSignInLink, finishSignIn, peekSignInLink, type SignInOutcome } from '../../operations/sign-in-steps.ts';
import { notFound } from '../../errors/errors.ts';
import { clearCookie, readToken, setCookie } from '../cookies.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString } from '../forms.ts';
import { html } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { safeReturnTo } from '../return-to.ts';
import { requireUser, startSession } from '../session.ts';
import { secureCookies, type WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { accountSignInPages } from './account-sign-ins.ts';
import { PROVIDER_LABELS } from './provider-buttons.ts';
import { checkYourMail } from './sign-up.ts';

/** Binds an attempt to the browser that started it; lives as long as the attempt. */
const ATTEMPT_COOKIE = 'ld_signin_attempt';
const ATTEMPT_COOKIE_SECONDS = 10 * 60;

export const socialSignInPages: PageRoutes = (router, services) => {
  const providers = createSocialProviders(services.config.socialSignIn);
  const providerOf = (ctx: Context): SocialProvider => {
    const provider = providers[String(ctx.params.provider) as SignInProvider];
    if (!provider) throw notFound('This sign-in provider');
    return provider;
  };

  router.get('/signin/{provider}', async function startProviderSignIn(ctx) {
    const provider = providerOf(ctx);
    await redirectToProvider(ctx, services, provider, { returnTo: safeReturnTo(ctx.query.return_to), link: false });
  });

  router.post('/account/sign-ins/{provider}/link', requireUser(services), async function startProviderLink(ctx) {
    await redirectToProvider(ctx, services, providerOf(ctx), { returnTo: '/account/sign-ins', link: true });
  });

  router.get('/signin/{provider}/callback', async function providerCallback(ctx) {
    const provider = providerOf(ctx);
    const query = new URLSearchParams(ctx.querystring);
    const outcome = await finishSignIn(await pageContext(ctx, services), provider, readToken(ctx, ATTEMPT_COOKIE), query);
    // A forged callback (another state) leaves this browser's attempt for the provider's real answer.
    if (!(outcome.outcome === 'attempt_invalid' && outcome.reason === 'wrong_state')) {
      clearCookie(ctx, ATTEMPT_COOKIE, { secure: secureCookies(services) });
    }
    await answer(ctx, services, provider.name, outcome);
  });

  // Opening the mailed link only shows what it does: a mail scanner's visit links nothing.
  router.get('/sign-ins/confirm', async function showLinkConfirmation(ctx) {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const request = await peekSignInLink(await pageContext(ctx, services), token);
    if (!request) return deadLink(ctx, services);
    const csrf = await csrfToken(ctx, services);
    await renderPage(ctx, services, {
      title: `Sign in with ${PROVIDER_LABELS[request.provider]}?`,
      main: html`<p>Confirm that the ${PROVIDER_LABELS[request.provider]} account with the address <strong>${request.email}</strong> may sign in to your account here.</p>
${postForm('/sign-ins/confirm', csrf, html`<input type="hidden" name="token" value="${token}"><button type="submit">Confirm and sign in</button>`)}
<p>Not you? Close this page: nothing changes.</p>`,
    });
  });

  router.post('/sign-ins/confirm', async function confirmLink(ctx) {
    const result = await confirmSignInLink(await pageContext(ctx, services), formString(formBody(ctx), 'token'));
    if (!result.ok) {
      if (result.reason === 'dead_link') return deadLink(ctx, services);
      return refusal(ctx, services, result.provider, result.reason);
    }
    await startSession(ctx, services, result.userId);
    ctx.status = 303;
    ctx.redirect('/account/sign-ins?notice=sign-in-linked');
  });

  accountSignInPages(router, services);
};

async function redirectToProvider(
  ctx: Context,
  services: WebServices,
  provider: SocialProvider,
  options: { returnTo: string; link: boolean },
): Promise<void> {
  let started;
  try {
    started = await beginSignIn(await pageContext(ctx, services), provider, options);
  } catch (err) {
    ctx.state.log?.warn({ err, provider: provider.name }, 'could not start a sign-in with a provider');
    return failed(ctx, services, provider.name, 'unreachable');
  }
  setCookie(ctx, ATTEMPT_COOKIE, started.cookieId, { maxAgeSeconds: ATTEMPT_COOKIE_SECONDS, secure: secureCookies(services) });
  ctx.status = 303;
  ctx.redirect(started.redirectTo.href);
}

async function answer(ctx: Context, services: WebServices, provider: SignInProvider, outcome: SignInOutcome): Promise<void> {
  switch (outcome.outcome) {
    case 'signed_in':
    case 'created':
    case 'linked': {
      // Linking keeps the session that asked for it; only a sign-in starts one.
      if (!outcome.linking) await startSession(ctx, services, outcome.userId);
      ctx.status = 303;
      return ctx.redirect(outcome.linking ? '/account/sign-ins?notice=sign-in-linked' : outcome.returnTo);
    }
    case 'confirm_by_mail':
      return checkYourMail(
        ctx,
        services,
        outcome.email,
        `to confirm that your ${PROVIDER_LABELS[provider]} account may sign in to the account of this address. Nothing changes until it is opened; the link works for 1 hour.`,
      );
    case 'attempt_invalid':
      return attemptInvalid(ctx, services, provider, outcome.reason);
    case 'failed':
      return failed(ctx, services, provider, outcome.kind);
    default:
      return refusal(ctx, services, provider, outcome.outcome);
  }
}

const REFUSALS: Record<'unverified' | 'identity_taken' | 'email_taken' | 'provider_taken', (name: string) => string> = {
  unverified: (name) =>
    `${name} did not give us a confirmed email address for your account there, so we can neither sign you in with it nor make an account. Confirm your address at ${name} (or add one), then try again, or sign up with your email address.`,
  identity_taken: (name) =>
    `This ${name} account already signs in to another account here. Sign in with it to reach that account, or unlink it there first.`,
  email_taken: (name) =>
    `The address of this ${name} account belongs to another account here, so it cannot be linked to yours. Sign in to that account to link it there.`,
  provider_taken: (name) => `Your account already has a ${name} sign-in. Unlink it first to link a different ${name} account.`,
};

async function refusal(ctx: Context, services: WebServices, provider: SignInProvider, reason: keyof typeof REFUSALS): Promise<void> {
  await renderPage(ctx, services, {
    title: `We could not use your ${PROVIDER_LABELS[provider]} account`,
    status: 422,
    main: html`<p>${REFUSALS[reason](PROVIDER_LABELS[provider])}</p><p>Nothing was changed.</p>
<p><a href="/signin">Back to sign-in</a></p>`,
  });
}

const ATTEMPT_WORDS = {
  missing: 'This sign-in was not started in this browser, or it was finished already.',
  wrong_state: 'The answer from the provider does not belong to the sign-in this browser started (its state does not match).',
  used: 'This sign-in was finished already: its answer cannot be used twice.',
  expired: 'This sign-in took longer than 10 minutes and expired.',
};

async function attemptInvalid(ctx: Context, services: WebServices, provider: SignInProvider, reason: keyof typeof ATTEMPT_WORDS) {
  await renderPage(ctx, services, {
    title: 'This sign-in did not work',
    status: 400,
    main: html`<p>${ATTEMPT_WORDS[reason]} Nothing was changed.</p>
<p><a href="/signin/${provider}">Start again with ${PROVIDER_LABELS[provider]}</a> or <a href="/signin">go back to sign-in</a>.</p>`,
  });
}

const FAILURE_WORDS = {
  denied: (name: string) => `${name} did not let the sign-in through (it was cancelled or refused there).`,
  refused: (name: string) => `${name} did not accept the sign-in's answer (for example a code that was used already).`,
  unreachable: (name: string) => `We could not reach ${name} just now.`,
};

async function failed(ctx: Context, services: WebServices, provider: SignInProvider, kind: keyof typeof FAILURE_WORDS) {
  await renderPage(ctx, services, {
    title: 'This sign-in did not work',
    status: kind === 'unreachable' ? 502 : 400,
    main: html`<p>${FAILURE_WORDS[kind](PROVIDER_LABELS[provider])} Nothing was changed.</p>
<p><a href="/signin/${provider}">Try again</a> or <a href="/signin">sign in another way</a>.</p>`,
  });
}

async function deadLink(ctx: Context, services: WebServices) {
  await renderPage(ctx, services, {
    title: 'This link does not work',
    status: 400,
    main: html`<p>The link is incomplete, was used already, or has expired (it works for 1 hour). Nothing was changed.</p>
<p>Sign in with the provider again to get a new link, or <a href="/signin">sign in with your password</a>.</p>`,
  });
}
