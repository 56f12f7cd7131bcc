import { html, type SafeHtml } from './html.ts';

/**
 * The share control of listing, week and founder pages: the browser's own share sheet where
 * there is one (a button the script below shows), and plain links otherwise. No third party's
 * script runs on our pages: each link only opens the network's own "post this" page.
 */
export function shareControl(url: string, title: string): SafeHtml {
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString().replaceAll('+', '%20');
  const text = `${title} ${url}`;
  const links: [string, string][] = [
    ['X', `https://x.com/intent/post?${q({ text: title, url })}`],
    ['LinkedIn', `https://www.linkedin.com/sharing/share-offsite/?${q({ url })}`],
    ['Bluesky', `https://bsky.app/intent/compose?${q({ text })}`],
    ['Mastodon', `https://mastodonshare.com/?${q({ text: title, url })}`],
    ['Email', `mailto:?${q({ subject: title, body: url })}`],
  ];
  return html`<section class="share" aria-labelledby="share-title"><h2 id="share-title">Share</h2>
<button type="button" data-share-url="${url}" data-share-title="${title}" hidden>Share this page…</button>
<ul class="share-links">${links.map(([name, href]) => html`<li><a href="${href}" rel="noopener noreferrer">${name}<span class="visually-hidden">: share this page</span></a></li>`)}</ul>
</section>`;
}

/** Shows the share button where the browser has a share sheet (navigator.share), and uses it. */
export const SHARE_SCRIPT = `
for (const button of document.querySelectorAll('button[data-share-url]')) {
  if (!navigator.share) continue;
  button.hidden = false;
  button.addEventListener('click', () => {
    navigator.share({ title: button.dataset.shareTitle, url: button.dataset.shareUrl }).catch(() => {});
  });
}`;
