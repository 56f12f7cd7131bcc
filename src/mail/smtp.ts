import type { Transporter } from 'nodemailer';
import type { Config } from '../config/config.ts';

/** One mail of the outbox, ready to send. */
export interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  /** The one-click unsubscribe URL of a stoppable mail; null or absent for transactional mail. */
  listUnsubscribe?: string | null;
  /** An HTML alternative to `text` (multipart/alternative); null or absent: text only. */
  html?: string | null;
  /** Envelope sender (Return-Path) where bounces go; null or absent: the From address. */
  envelopeFrom?: string | null;
}

/**
 * The headers of a mail people can stop with one click (RFC 8058): the mail client POSTs
 * `List-Unsubscribe=One-Click` to the URL, without cookies. Empty for transactional mail.
 */
export function unsubscribeHeaders(url: string | null | undefined): Record<string, string> {
  return url ? { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {};
}

/** Sends mail over SMTP; one pooled transport per process. */
export interface Mailer {
  /** Resolves once the SMTP server accepted the mail; rejects with the server's answer otherwise. */
  send(mail: OutboxMail): Promise<void>;
  close(): void;
}

/**
 * A pooled SMTP mailer, or null when no SMTP_URL is configured (mail then stays in the outbox).
 * nodemailer is loaded at the first mail sent, not with this module: it costs about 0.2 s of CPU,
 * which every process that builds the services (each test file is one) would pay at startup.
 */
export function createMailer(config: Pick<Config, 'mail' | 'baseUrl'>): Mailer | null {
  const { smtpUrl, from } = config.mail;
  if (!smtpUrl) return null;
  let transport: Promise<Transporter> | undefined;
  const connect = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport(
        {
          url: smtpUrl,
          pool: true,
          maxConnections: 4,
          // nodemailer waits minutes by default; a stuck server must not hold a delivery lane that long.
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 30_000,
        },
        { from },
      ),
    ));
  const host = new URL(config.baseUrl).hostname;
  return {
    async send(mail) {
      const transporter = await connect();
      await transporter.sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.html ? { html: mail.html } : {}),
        ...(mail.envelopeFrom ? { envelope: { from: mail.envelopeFrom, to: mail.to } } : {}),
        headers: unsubscribeHeaders(mail.listUnsubscribe),
        // Stable per outbox row: should a crash ever resend a mail, receivers can tell it is the same one.
        messageId: `<outbox-${mail.id}@${host}>`,
      });
    },
    close: () => void transport?.then((t) => t.close()),
  };
}

/** A 5xx answer: the server refused this mail for good, so retrying would not help. */
export function isPermanentSmtpFailure(err: unknown): boolean {
  const code = (err as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
