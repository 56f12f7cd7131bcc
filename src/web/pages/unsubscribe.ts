import type { Context } from 'koa';
import type { MailKind } from '../../domain/mail-preferences/kinds.ts';
import type { StopLink } from '../../domain/mail-preferences/links.ts';
import { knownError } from '../../errors/errors.ts';
import { unsubscribeMailOp } from '../../operations/mail-preferences.ts';
import { unsubscribeLink } from '../../operations/read-models/mail-preferences.ts';
import { paths } from '../../lib/paths.ts';
import type { RouteScope } from '../../http/router.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage, pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const ROUTE = '/unsubscribe/{token}';

/** Each kind of mail people can stop, in words: the account page and the unsubscribe page. */
export const MAIL_KIND_WORDS: Record<MailKind, { name: string; about: string }> = {
  follower_updates: {
    name: 'Updates of the listings you follow',
    about: 'a mail for each update, at most one an hour per listing; later updates come in one digest',
  },
  launch_reminders: {
    name: 'Launch reminders',
    about: 'when your free launch is booked, still waiting, or our badge is missing from your site',
  },
  weekly_results: {
    name: 'Weekly results',
    about: 'when one of your listings finishes a week in the top three',
  },
  comment_replies: {
    name: 'Replies to your comments',
    about: 'at most one mail an hour, with every reply since the last one',
  },
  listing_comments: {
    name: 'Comments on your listings',
    about: 'at most one mail an hour, with every new comment since the last one',
  },
};

/** What a link stops, as a phrase: "updates of Acme", "launch reminders". */
function whatItStops(link: StopLink): SafeHtml {
  if (link.kind === 'follower_updates') {
    return link.listing ? html`mails about the updates of ${link.listing.name}` : html`mails about the updates of the listings you follow`;
  }
  return html`${MAIL_KIND_WORDS[link.kind].name.toLowerCase()} by mail`;
}

/**
 * The page behind the link at the end of every stoppable mail. GET only shows what the link
 * stops and a button: link scanners and previews follow GETs, so a GET changes nothing.
 */
export const unsubscribePages: PageRoutes = (router, services) => {
  router.get(ROUTE, async function showUnsubscribe(ctx) {
    const token = String(ctx.params.token);
    const link = await unsubscribeLink(await pageContext(ctx, services), token);
    if (!link) return deadLink(ctx, services);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Robots-Tag', 'noindex');
    if (link.stopped) return stoppedPage(ctx, services, link);
    await renderPage(ctx, services, {
      title: 'Stop these mails?',
      main: html`<p>This link stops ${whatItStops(link)}. You do not need to sign in.</p>
<form method="post" action="${paths.unsubscribe(token)}"><input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Stop these mails</button></form>
<p>Mails about your own actions (sign-in, orders, claims) still come. You can choose every kind of mail on <a href="${paths.mailPreferences}">your account page</a>.</p>`,
    });
  });
};

/**
 * The one-click POST (RFC 8058): a mail client sends `List-Unsubscribe=One-Click` to the link,
 * without cookies, so this route sits outside the pages' CSRF check. The signed token in the path
 * is the authority; stopping is idempotent, so a client's POST and the person's button may both
 * come. Honoured at once: the next mail of the kind is not sent, queued or not.
 */
export function oneClickUnsubscribe(router: RouteScope, services: WebServices): void {
  router.post(ROUTE, async function unsubscribeOneClick(ctx) {
    ctx.set('Cache-Control', 'no-store');
    let link: StopLink;
    try {
      link = (await invokeForPage(ctx, services, unsubscribeMailOp, { token: String(ctx.params.token) })) as StopLink;
    } catch (err) {
      if (knownError(err)?.code === 'unsubscribe_link_invalid' || knownError(err)?.code === 'validation_failed')
        return deadLink(ctx, services);
      throw err;
    }
    await stoppedPage(ctx, services, link);
  });
}

async function stoppedPage(ctx: Context, services: WebServices, link: StopLink) {
  await renderPage(ctx, services, {
    title: 'You will not get these mails any more',
    main: html`<p>We stopped ${whatItStops(link)}. It holds from now on, also for mails that were about to go out.</p>
<p>Changed your mind? Sign in and switch them back on under <a href="${paths.mailPreferences}">Mails we send you</a> on your account page.</p>`,
  });
}

async function deadLink(ctx: Context, services: WebServices) {
  ctx.set('Cache-Control', 'no-store');
  await renderPage(ctx, services, {
    title: 'This unsubscribe link does not work',
    status: 400,
    main: html`<p>The link is incomplete or was changed on the way, so nothing was stopped. Use the whole link from the end of the mail.</p>
<p>Or sign in and choose the mails you get under <a href="${paths.mailPreferences}">Mails we send you</a> on your account page.</p>`,
  });
}
