import type { Context } from 'koa';
import { getMailPreferencesOp, MAIL_KINDS, updateMailPreferencesOp } from '../../operations/mail-preferences.ts';
import { paths } from '../../lib/paths.ts';
import { postForm } from '../components.ts';
import { csrfToken } from '../csrf.ts';
import { formBody } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { invokeForPage } from '../invoke.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';
import { MAIL_KIND_WORDS } from './unsubscribe.ts';

/**
 * The mail section of /account: each kind of mail people can stop, on or off, as one form
 * (update_mail_preferences). The same choices the one-click links make.
 */
export async function mailPreferencesSection(ctx: Context, services: WebServices): Promise<SafeHtml> {
  const prefs = await invokeForPage(ctx, services, getMailPreferencesOp, {});
  const token = await csrfToken(ctx, services);
  const saved = ctx.query.notice === 'mail-saved';
  return html`<section aria-labelledby="mail" class="mail-preferences">
<h2 id="mail">Mails we send you</h2>
${saved ? html`<p role="status" class="notice">Your mail choices are saved. They hold from now on.</p>` : ''}
<p>Mails about your own actions (sign-in, password, orders, claims) always come. These you choose:</p>
${postForm(
  paths.changeMailPreferences,
  token,
  html`<fieldset><legend>Send me</legend>
${prefs.kinds.map(
  (k) =>
    html`<label class="check"><input type="checkbox" name="receive" value="${k.kind}"${k.receiving ? html` checked` : ''}> <span>${MAIL_KIND_WORDS[k.kind].name} — ${MAIL_KIND_WORDS[k.kind].about} <span class="muted">(${k.receiving ? 'on' : 'off'})</span></span></label>`,
)}
</fieldset>
${
  prefs.stopped_listings.length > 0 &&
  html`<fieldset><legend>Listings whose updates you stopped</legend>
${prefs.stopped_listings.map(
  (l) =>
    html`<input type="hidden" name="shown_listing" value="${l.listing_id}"><label class="check"><input type="checkbox" name="listing" value="${l.listing_id}"> <span>Updates of ${l.name} <span class="muted">(off)</span></span></label>`,
)}
</fieldset>`
}
<button type="submit">Save mail choices</button>`,
)}
</section>`;
}

/** The form's post: every kind is on when its box is ticked, off when not. */
export const mailPreferencePages: PageRoutes = (router, services) => {
  router.post(paths.changeMailPreferences, requireUser(services), async function saveMailPreferences(ctx) {
    const body = formBody(ctx);
    const list = (name: string) => [body[name] ?? []].flat().map(String);
    const receive = new Set(list('receive'));
    const ticked = new Set(list('listing'));
    const listings = [...new Set(list('shown_listing'))]
      .filter((id) => /^[1-9]\d{0,9}$/.test(id))
      .slice(0, 100)
      .map((id) => ({ listing_id: Number(id), receiving: ticked.has(id) }));
    const kinds = Object.fromEntries(MAIL_KINDS.map((kind) => [kind, receive.has(kind)]));
    await invokeForPage(ctx, services, updateMailPreferencesOp, { ...kinds, listings });
    ctx.status = 303;
    ctx.redirect(`/account?notice=mail-saved${paths.mailPreferences.slice('/account'.length)}`);
  });
};
