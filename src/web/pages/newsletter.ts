import type { Context } from 'koa';
import { knownError } from '../../errors/errors.ts';
import { paths, smallLogoUrl } from '../../lib/paths.ts';
import {
  confirmNewsletterOp,
  getNewsletterSubscriptionOp,
  setNewsletterSubscriptionOp,
  subscribeNewsletterOp,
  unsubscribeNewsletterOp,
} from '../../operations/newsletter.ts';
import { weekArchivePath } from '../../operations/read-models/archive.ts';
import { addWeeks, isoWeekLabel, weekOfText } from '../../operations/read-models/launches.ts';
import {
  confirmLink,
  newsletterIssue,
  newsletterIssuePath,
  newsletterUnsubscribeLink,
  SUBSCRIBE_ANSWER,
  weekOfIssuePath,
  type IssueListing,
} from '../../operations/read-models/newsletter.ts';
import type { RouteScope } from '../../http/router.ts';
import { errorSummary, field, postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody, formString } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, maxLengthOf, pageContext } from '../invoke.ts';
import { keptForVisitors } from '../page-cache.ts';
import { renderPage } from '../render.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const CONFIRM = '/newsletter/confirm/{token}';
const UNSUBSCRIBE = '/newsletter/unsubscribe/{token}';

/**
 * The subscribe form of the home and launches pages. It carries no CSRF token, so kept copies of
 * those pages serve every visitor: its POST is the public subscribe_newsletter operation, which
 * anyone may call, and double opt-in with a rate limit is what guards it.
 */
export function newsletterSignup(error?: string, value = ''): SafeHtml {
  return html`<section aria-labelledby="newsletter" class="newsletter-signup">
<h2 id="newsletter">The week’s launches by mail</h2>
<form method="post" action="${paths.newsletter}">
${field({ name: 'email', label: 'Your email address', type: 'email', value, error, autocomplete: 'email', required: true, maxlength: maxLengthOf(subscribeNewsletterOp, 'email') ?? 254, hint: 'One mail a week with the results and the coming launches. We ask you to confirm first.' })}
<button type="submit">Subscribe</button>
</form>
</section>`;
}

/** The newsletter part of /account: one click for a signed-in person, at their account email. */
export async function accountNewsletterSection(ctx: Context, services: WebServices): Promise<SafeHtml> {
  const sub = await invokeForPage(ctx, services, getNewsletterSubscriptionOp, {});
  const token = await csrfToken(ctx, services);
  const words = { none: 'You do not get it.', pending: 'We mailed you a link to confirm it.', subscribed: `You get it at ${sub.email}.` };
  const on = sub.status !== 'none';
  return html`<section aria-labelledby="newsletter">
<h2 id="newsletter">Weekly newsletter</h2>
${ctx.query.notice === 'newsletter-saved' ? html`<p role="status" class="notice">Saved.</p>` : ''}
<p>The week’s results and the coming launches, once a week. ${words[sub.status]}</p>
${postForm(
  paths.accountNewsletter,
  token,
  html`<input type="hidden" name="subscribed" value="${on ? 'false' : 'true'}"><button type="submit">${on ? 'Unsubscribe' : 'Subscribe'}</button>`,
)}
</section>`;
}

export const newsletterPages: PageRoutes = (router, services) => {
  router.get(paths.newsletter, async function showNewsletterSignup(ctx) {
    await renderPage(ctx, services, { title: 'Weekly newsletter', main: newsletterSignup() });
  });
  router.get(CONFIRM, async function showConfirm(ctx) {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Robots-Tag', 'noindex');
    const token = String(ctx.params.token);
    const state = await confirmLink(await pageContext(ctx, services), token);
    if (state !== 'ok') return deadConfirmLink(ctx, services, state);
    // A GET changes nothing: link scanners open mailed links too.
    await renderPage(ctx, services, {
      title: 'Confirm your subscription',
      main: html`<p>One more click and you get the weekly newsletter.</p>
<form method="post" action="${paths.newsletterConfirm(token)}"><button type="submit">Confirm my subscription</button></form>`,
    });
  });
  router.get(UNSUBSCRIBE, async function showNewsletterUnsubscribe(ctx) {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Robots-Tag', 'noindex');
    const token = String(ctx.params.token);
    const link = await newsletterUnsubscribeLink(await pageContext(ctx, services), token);
    if (!link) return deadUnsubscribeLink(ctx, services);
    if (!link.subscribed) return unsubscribedPage(ctx, services, link.email);
    await renderPage(ctx, services, {
      title: 'Unsubscribe from the newsletter?',
      main: html`<p>This link stops the weekly newsletter to ${link.email}. You do not need to sign in.</p>
<form method="post" action="${paths.newsletterUnsubscribe(token)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
    });
  });
  router.get(
    '/newsletter/{year}/{week}',
    // An issue never changes once its week is closed: visitors get a kept copy, as of the archive's pages.
    keptForVisitors(
      services,
      (ctx) => `newsletter:${ctx.params.year}:${ctx.params.week}`,
      async function showIssue(ctx) {
        const monday = weekOfIssuePath(String(ctx.params.year), String(ctx.params.week));
        const c = await pageContext(ctx, services);
        const issue = monday ? await newsletterIssue(c, monday) : null;
        if (!issue) return notFoundIssue(ctx, services);
        await renderPage(ctx, services, {
          title: `Newsletter: the launches of the ${weekOfText(issue.week_start)}`,
          meta: {
            description: `The weekly newsletter of ${issue.site.name} about the ${weekOfText(issue.week_start)}: the final top launches, the featured ones and the launches of the week after.`,
            canonical: newsletterIssuePath(issue.week_start),
          },
          main: html`<p>The final results of the ${weekOfText(issue.week_start)}, as our subscribers got them.</p>
<h2>Top launches</h2>${listings(issue.top, 'No launches this week.')}
${issue.featured.length ? html`<h2>Featured</h2>${listings(issue.featured, '', true)}` : ''}
<p><a href="${weekArchivePath(issue.week_start)}">The whole ranking of the week</a></p>
<h2>Coming next week <span class="muted">(${isoWeekLabel(addWeeks(issue.week_start, 1))})</span></h2>${listings(issue.upcoming, 'Nothing scheduled yet.')}
${newsletterSignup()}`,
        });
      },
    ),
  );
  router.post(paths.accountNewsletter, requireUser(services), async function saveAccountNewsletter(ctx) {
    await invokeForPage(ctx, services, setNewsletterSubscriptionOp, { subscribed: formString(formBody(ctx), 'subscribed') === 'true' });
    ctx.status = 303;
    ctx.redirect('/account?notice=newsletter-saved#newsletter');
  });
};

/**
 * The newsletter's POSTs without a CSRF token: the subscribe form of kept pages (see
 * newsletterSignup), the confirmation button, and the one-click unsubscribe (RFC 8058: mail clients
 * POST without cookies). Each is authorised by what it carries: a public operation's input, or the
 * token of a mailed link.
 */
export function newsletterPostsWithoutCsrf(router: RouteScope, services: WebServices): void {
  router.post(paths.newsletter, async function subscribeFromForm(ctx) {
    ctx.set('Cache-Control', 'no-store');
    const email = formString(formBody(ctx), 'email').trim();
    try {
      await invokeForPage(ctx, services, subscribeNewsletterOp, { email });
    } catch (err) {
      const known = knownError(err);
      if (known?.code !== 'validation_failed') throw err;
      const message = known.errors?.[0]?.message ?? 'Enter an email address like name@example.com.';
      return renderPage(ctx, services, {
        title: 'Weekly newsletter',
        status: 400,
        main: html`${errorSummary({ email: message })}${newsletterSignup(message, email.slice(0, 300))}`,
      });
    }
    await renderPage(ctx, services, {
      title: 'Check your inbox',
      main: html`<p>${SUBSCRIBE_ANSWER}</p><p>Nothing is sent before you confirm.</p>`,
    });
  });
  router.post(CONFIRM, async function confirmFromLink(ctx) {
    ctx.set('Cache-Control', 'no-store');
    try {
      await invokeForPage(ctx, services, confirmNewsletterOp, { token: String(ctx.params.token) });
    } catch (err) {
      const code = knownError(err)?.code;
      if (code === 'newsletter_link_expired') return deadConfirmLink(ctx, services, 'expired');
      if (code === 'newsletter_link_invalid' || code === 'validation_failed') return deadConfirmLink(ctx, services, 'invalid');
      throw err;
    }
    await renderPage(ctx, services, {
      title: 'You are subscribed',
      main: html`<p>You get the weekly newsletter from the next closed week on. Each mail has a link to unsubscribe.</p>`,
    });
  });
  router.post(UNSUBSCRIBE, async function unsubscribeNewsletterOneClick(ctx) {
    ctx.set('Cache-Control', 'no-store');
    try {
      const link = await invokeForPage(ctx, services, unsubscribeNewsletterOp, { token: String(ctx.params.token) });
      await unsubscribedPage(ctx, services, link.email);
    } catch (err) {
      const code = knownError(err)?.code;
      if (code === 'newsletter_link_invalid' || code === 'validation_failed') return deadUnsubscribeLink(ctx, services);
      throw err;
    }
  });
}

function listings(items: IssueListing[], empty: string, featured = false): SafeHtml {
  if (items.length === 0) return html`<p>${empty}</p>`;
  return html`<ol class="feed listings">${items.map(
    (l) =>
      html`<li>${l.logo_url ? html`<img src="${smallLogoUrl(l.logo_url)}" alt="" width="32" height="32" loading="lazy"> ` : ''}${l.rank !== null ? html`#${l.rank} ` : ''}<a href="${paths.listing(l.slug)}">${l.name}</a>${featured ? html` <strong>Featured</strong>` : ''}${l.headline ? html` — ${l.headline}` : ''}</li>`,
  )}</ol>`;
}

async function deadConfirmLink(ctx: Context, services: WebServices, state: 'invalid' | 'expired') {
  ctx.set('Cache-Control', 'no-store');
  await renderPage(ctx, services, {
    title: state === 'expired' ? 'This confirmation link has expired' : 'This confirmation link does not work',
    status: 400,
    main: html`<p>${state === 'expired' ? 'The link is too old, so nothing was confirmed.' : 'The link was already used, or it is incomplete, so nothing was changed.'}</p>
<p>To get the newsletter, <a href="${paths.newsletter}">subscribe again</a>: we mail you a new link.</p>`,
  });
}

async function deadUnsubscribeLink(ctx: Context, services: WebServices) {
  ctx.set('Cache-Control', 'no-store');
  await renderPage(ctx, services, {
    title: 'This unsubscribe link does not work',
    status: 400,
    main: html`<p>The link is incomplete or was changed on the way, so nothing was stopped. Use the whole link from the end of the newsletter.</p>`,
  });
}

async function unsubscribedPage(ctx: Context, services: WebServices, email: string) {
  await renderPage(ctx, services, {
    title: 'You are unsubscribed',
    main: html`<p>We will not send the weekly newsletter to ${email} any more.</p>
<p>Changed your mind? <a href="${paths.newsletter}">Subscribe again</a>.</p>`,
  });
}

async function notFoundIssue(ctx: Context, services: WebServices) {
  await renderPage(ctx, services, {
    title: 'No newsletter for this week',
    status: 404,
    main: html`<p>There is no issue for this week: it is not closed yet, or the address is wrong.</p><p><a href="/best">Every closed week</a></p>`,
  });
}
