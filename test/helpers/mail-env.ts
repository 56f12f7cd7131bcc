import { createMailer, type Mailer } from '../../src/mail/smtp.ts';
import { startTestEnv, type TestEnv } from './env.ts';
import { startTestSmtp, type TestSmtp } from './smtp.ts';

/** A test env with a loopback SMTP server and a mailer that sends to it, for the mail tests. */
export interface MailTestEnv {
  env: TestEnv;
  smtp: TestSmtp;
  mailer: Mailer;
  close(): Promise<void>;
}

export async function startMailTestEnv(testFile: string): Promise<MailTestEnv> {
  const env = await startTestEnv(testFile);
  const smtp = await startTestSmtp();
  const mailer = createMailer({
    baseUrl: env.baseUrl,
    mail: { smtpUrl: smtp.url, from: 'Directory <no-reply@example.com>', sweepIntervalMs: 1000 },
  })!;
  return {
    env,
    smtp,
    mailer,
    async close() {
      mailer.close();
      await smtp.close();
      await env.close();
    },
  };
}
