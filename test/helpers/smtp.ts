import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  from: string;
  raw: string;
}

export interface TestSmtp {
  /** SMTP_URL for the app under test. */
  url: string;
  received: ReceivedMail[];
  /** Messages received for one address. */
  countFor(address: string): number;
  /** How the server answers the DATA of a mail to `address`: a reply code (e.g. 451, 550); null accepts. */
  answerFor: (address: string) => number | null;
  /** Milliseconds the server takes to accept each mail. */
  delayMs: number;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (smtp-server) that keeps every accepted mail. */
export async function startTestSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const smtp: TestSmtp = {
    url: '',
    received,
    countFor: (address) => received.filter((m) => m.to.includes(address)).length,
    answerFor: () => null,
    delayMs: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        const code = to.map(smtp.answerFor).find((c) => c !== null) ?? null;
        setTimeout(() => {
          if (code !== null) {
            callback(Object.assign(new Error(`refused for the test (${code})`), { responseCode: code }));
            return;
          }
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          received.push({ to, from, raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        }, smtp.delayMs);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  smtp.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return smtp;
}
