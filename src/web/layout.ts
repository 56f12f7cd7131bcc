import type { SessionUser } from '../auth/sessions.ts';
import { postForm } from './components.ts';
import { headMarkup, type HeadTags } from './head.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { slot } from './personal-slots.ts';
import { CSS } from './style.ts';
import { BROWSE_CSS } from './browse-style.ts';

/** The one stylesheet of every page, inline (pages are small; no extra request), named by its hash in the CSP. */
export const PAGE_STYLE = CSS + BROWSE_CSS;

export interface LayoutOptions {
  title: string;
  /** The <head>: document title, description, canonical, favicon, feeds, link previews, JSON-LD (src/web/head.ts). */
  head: HeadTags;
  main: SafeHtml;
  user: SessionUser | null;
  /** CSRF token of the signed-in session (for the sign-out button). */
  csrf: string | null;
  notice?: string;
  /** Trusted inline script of the page (its hash is in the page's CSP). */
  script?: string;
  /** The signed-in person's unread notifications, shown beside the header's link to them. */
  unread?: number;
  /** The site's billboard of the day (a paid booking), above every page's content. */
  banner?: SafeHtml;
}

/**
 * The one layout of every page. The header is one line: on narrow screens its links fold into a
 * "Menu" (a <details>: keyboard-usable and working without JavaScript); on wide screens they show
 * in a row (style.ts).
 */
export function layout(o: LayoutOptions): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.head.title}</title>
${headMarkup(o.head)}
<style>${raw(PAGE_STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><nav aria-label="Main">
<a class="brand" href="/">Listing Directory</a>
<details class="menu"><summary>Menu</summary>
<ul>${o.user && o.csrf ? signedInLinks(o.csrf, o.unread ?? 0) : slot('nav', '', anonymousLinks)}</ul>
</details>
</nav></header>
${o.banner ?? ''}
<main id="main">
${o.notice && html`<p class="notice" role="status">${o.notice}</p>`}
<h1>${o.title}</h1>
${o.main}
</main>
<footer>Listing Directory · <a href="/docs">API reference</a> · <a href="/api/v1/openapi.json">OpenAPI</a></footer>
${o.script && html`<script>${raw(o.script)}</script>`}
</body>
</html>`;
}

// Signed in, the founder's own listings come first: the page they come back for. Connected apps
// are on the account page: the header stays one line on a laptop.
export const signedInLinks = (
  csrf: string,
  unread: number,
) => html`<li><a href="/account/listings">Your listings</a></li><li><a href="/launches">Launches</a></li><li><a href="/updates">Latest updates</a></li><li><a href="/docs">API docs</a></li>
<li><a href="/account/notifications" data-unread="${unread}">Notifications${unread > 0 ? html` <span class="count">${unread}<span class="visually-hidden"> unread</span></span>` : ''}</a></li>
<li><a href="/account">Account</a></li>
<li><a href="/account/keys">API keys</a></li>
<li>${postForm('/signout', csrf, html`<button class="link" type="submit">Sign out</button>`, 'inline')}</li>`;

const anonymousLinks = html`<li><a href="/launches">Launches</a></li><li><a href="/updates">Latest updates</a></li><li><a href="/docs">API docs</a></li><li><a href="/signin">Sign in</a></li><li><a href="/signup">Sign up</a></li>`;
