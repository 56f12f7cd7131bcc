import type { Context, Next } from 'koa';
import type { Config } from '../../config/config.ts';
import { notFound } from '../../errors/errors.ts';
import { hostGuard } from '../../http/host-guard.ts';
import { latestMails, outboxMail } from '../../operations/read-models/mailbox.ts';
import { time } from '../components.ts';
import { escapeHtml, html, raw, type SafeHtml } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import type { PageRoutes } from './page-routes.ts';

const SHOWN = 100;

/**
 * Development only (DEV_MAILBOX, or a loopback BASE_URL without SMTP_URL outside production): the
 * mail outbox as pages, so a newcomer can open the verification link. It shows reset links too,
 * so a public deployment must never serve it. Off, the paths are ordinary unknown pages; on, they
 * answer only to our own host names (/mcp's DNS-rebinding check): a web page of another name
 * rebound to our loopback address cannot read the mail.
 */
export const devMailboxPages: PageRoutes = (router, services) => {
  if (!services.config.devMailbox) return;
  const isOurHost = hostGuard(services.config);
  const ourHostOnly = async function ourHostOnly(ctx: Context, next: Next) {
    if (!isOurHost(ctx.get('Host'))) throw notFound('The page');
    await next();
  };

  router.get('/dev/mailbox', ourHostOnly, async function listMail(ctx) {
    const rows = await latestMails(await pageContext(ctx, services), SHOWN);
    await renderPage(ctx, services, {
      title: 'Mailbox (development)',
      main: html`<p class="muted">Mail is not sent without <code>SMTP_URL</code>; the last ${SHOWN} mails of the outbox are here.</p>
${
  rows.length === 0
    ? html`<p>No mail yet.</p>`
    : html`<table>
<thead><tr><th scope="col">When</th><th scope="col">To</th><th scope="col">Subject</th></tr></thead>
<tbody>${rows.map((m) => html`<tr><td>${time(m.created_at)}</td><td>${m.to_address}</td><td><a href="/dev/mailbox/${m.id}">${m.subject}</a></td></tr>`)}</tbody>
</table>`
}`,
    });
  });

  router.get('/dev/mailbox/{id}', ourHostOnly, async function showMail(ctx) {
    const mail = await outboxMail(await pageContext(ctx, services), ctx.params.id);
    if (!mail) throw notFound('The mail');
    await renderPage(ctx, services, {
      title: mail.subject,
      main: html`<p><a href="/dev/mailbox">← Mailbox</a></p>
<dl><dt>To</dt><dd>${mail.to_address}</dd><dt>Queued</dt><dd>${time(mail.created_at)}</dd><dt>Sent</dt><dd>${time(mail.sent_at, 'not sent')}</dd></dl>
<pre class="mail">${linkify(mail.body_text)}</pre>`,
    });
  });
};

/** One line for start-up output: whether the mailbox is served, where, and which setting decides. */
export function devMailboxNotice(config: Pick<Config, 'devMailbox' | 'baseUrl'>): string {
  return config.devMailbox
    ? `${config.baseUrl}/dev/mailbox is ON: it shows every mail, reset links included (development only; DEV_MAILBOX=false turns it off)`
    : 'off (/dev/mailbox is served only on a loopback BASE_URL without SMTP_URL, or with DEV_MAILBOX=true)';
}

/** Escapes the text and makes its http(s) URLs clickable (other schemes stay text). */
function linkify(text: string): SafeHtml {
  return raw(
    text
      .split(/(https?:\/\/[^\s<>"']+)/g)
      .map((part, i) => (i % 2 === 1 ? `<a href="${escapeHtml(part)}">${escapeHtml(part)}</a>` : escapeHtml(part)))
      .join(''),
  );
}
