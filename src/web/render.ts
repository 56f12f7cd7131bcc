import type { Context } from 'koa';
import { csrfToken } from './csrf.ts';
import { errorSummary, postForm } from './components.ts';
import type { FieldMessages } from './forms.ts';
import { html, type SafeHtml } from './html.ts';
import { billboardBanner } from './billboard.ts';
import { headTags, type PageMeta } from './head.ts';
import { pageContext } from './invoke.ts';
import { layout, PAGE_STYLE } from './layout.ts';
import { contentSecurityPolicy, type ExternalSources } from './security-headers.ts';
import { currentUser } from './session.ts';
import { unreadNotifications } from '../operations/read-models/notifications.ts';
import type { WebServices } from './web-services.ts';

/** What a page renders into the layout. */
export interface PageOptions {
  title: string;
  main: SafeHtml;
  status?: number;
  /** Trusted inline script of the page (named by its hash in the page's CSP). */
  script?: string;
  /** Hosts the page's script loads from, frames and calls (Stripe's pay form). */
  external?: ExternalSources;
  /** Description, canonical path, link previews, JSON-LD and feeds of the page (src/web/head.ts). */
  meta?: PageMeta;
  /** Shown above the heading; defaults to the message named by `?notice=`. */
  notice?: string;
}

/** Fixed messages a redirect can ask for with `?notice=` (never text from the URL itself). */
const NOTICES = new Map([
  ['verified', 'Your email address is confirmed. You can sign in now.'],
  ['signed-out', 'You are signed out.'],
  [
    'password-changed',
    'Your password is changed. Every other session of your account is signed out and connected apps are disconnected; API keys stay valid.',
  ],
  ['key-revoked', 'The key is revoked. Calls with it fail from now on.'],
  ['followed', 'You follow this listing now.'],
  ['unfollowed', 'You no longer follow this listing.'],
  ['draft-saved', 'Your changes to the draft are saved.'],
  ['draft-submitted', 'Your draft is now a listing. Next, choose how to launch it.'],
  ['voted', 'Your vote is counted.'],
  ['unvoted', 'Your vote is taken back.'],
  ['commented', 'Your comment is posted.'],
  ['comment-held', 'Your comment is waiting for review: you see it, others will once the site team approves it.'],
  ['comment-edited', 'Your comment is changed.'],
  ['comment-deleted', 'Your comment is deleted.'],
  ['comment-voted', 'Your upvote is counted.'],
  ['comment-unvoted', 'Your upvote is taken back.'],
  ['comment-reported', 'Thank you: the site team will look at this comment.'],
]);

/** Renders a page in the layout as the response. */
export async function renderPage(ctx: Context, services: WebServices, o: PageOptions): Promise<void> {
  const user = await currentUser(ctx, services);
  const notice = o.notice ?? (typeof ctx.query.notice === 'string' ? NOTICES.get(ctx.query.notice) : undefined);
  ctx.status = o.status ?? 200;
  ctx.type = 'text/html; charset=utf-8';
  const { site } = await pageContext(ctx, services);
  ctx.set(
    'Content-Security-Policy',
    contentSecurityPolicy({ styles: [PAGE_STYLE], scripts: o.script ? [o.script] : [], external: o.external }),
  );
  ctx.body = layout({
    title: o.title,
    head: headTags({ title: o.title, path: ctx.path, site, baseUrl: services.config.baseUrl, meta: o.meta ?? {} }),
    main: o.main,
    user,
    csrf: user ? await csrfToken(ctx, services) : null,
    // Only signed-in pages count; visitors' kept pages never carry a person's number.
    unread: user ? await unreadNotifications(services, user.id) : 0,
    notice,
    script: o.script,
    banner: await billboardBanner(ctx, services),
  }).value;
}

export interface FormPageOptions {
  title: string;
  status?: number;
  errors?: FieldMessages;
  /** Text above the form. */
  intro?: SafeHtml;
  action: string;
  /** The form's controls and its submit button. */
  fields: SafeHtml;
  /** Links below the form. */
  after?: SafeHtml;
}

/** A page holding one CSRF-protected form, with the list of its problems on top. */
export async function renderFormPage(ctx: Context, services: WebServices, o: FormPageOptions): Promise<void> {
  const token = await csrfToken(ctx, services);
  await renderPage(ctx, services, {
    title: o.title,
    status: o.status,
    main: html`${errorSummary(o.errors)}${o.intro ?? ''}${postForm(o.action, token, o.fields)}${o.after ?? ''}`,
  });
}
