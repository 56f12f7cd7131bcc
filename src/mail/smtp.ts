import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';

/** One mail of the outbox, ready to send. */
export interface OutboxMail {
  id: number;
  to: string;
  subject: string;
  text: string;
}

/** Sends mail over SMTP; one pooled transport per process. */
export interface Mailer {
  /** Resolves once the SMTP server accepted the mail; rejects with the server's answer otherwise. */
  send(mail: OutboxMail): Promise<void>;
  close(): void;
}

/** A pooled SMTP mailer, or null when no SMTP_URL is configured (mail then stays in the outbox). */
export function createMailer(config: Pick<Config, 'mail' | 'baseUrl'>): Mailer | null {
  if (!config.mail.smtpUrl) return null;
  const transport = nodemailer.createTransport(
    {
      url: config.mail.smtpUrl,
      pool: true,
      maxConnections: 4,
      // nodemailer waits minutes by default; a stuck server must not hold a delivery lane that long.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    },
    { from: config.mail.from },
  );
  const host = new URL(config.baseUrl).hostname;
  return {
    async send(mail) {
      await transport.sendMail({
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        // Stable per outbox row: should a crash ever resend a mail, receivers can tell it is the same one.
        messageId: `<outbox-${mail.id}@${host}>`,
      });
    },
    close: () => transport.close(),
  };
}

/** A 5xx answer: the server refused this mail for good, so retrying would not help. */
export function isPermanentSmtpFailure(err: unknown): boolean {
  const code = (err as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
