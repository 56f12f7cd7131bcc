import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';

const envs: TestEnv[] = [];
test.after.always(() => Promise.all(envs.map((e) => e.close())));

async function start(settings: Record<string, string>) {
  const env = await startTestEnv(import.meta.url, settings);
  envs.push(env);
  return env;
}

test('the mailbox page is on only without SMTP_URL and outside production', (t) => {
  t.true(loadConfig({}).devMailbox);
  t.false(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).devMailbox);
  t.false(loadConfig({ NODE_ENV: 'production' }).devMailbox);
  t.is(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).mail.smtpUrl, 'smtp://127.0.0.1:2525');
});

test('with SMTP_URL set the mailbox pages do not exist and pages do not point to them', async (t) => {
  const env = await start({ SMTP_URL: 'smtp://127.0.0.1:9' });
  await env.services.db('mail_outbox').insert({ to_address: 'a@example.com', subject: 'hidden-subject-7', body_text: 'token' });
  const client = new WebClient(env.baseUrl);
  for (const path of ['/dev/mailbox', '/dev/mailbox/1']) {
    const res = await client.get(path);
    t.is(res.status, 404, path);
    t.false(res.text.includes('hidden-subject-7'));
  }
  const _csrf = await client.csrfFrom('/signup');
  const done = await client.post('/signup', { _csrf, email: 'smtp@example.com', password: 'long enough 123' });
  t.is(done.status, 200);
  t.is(done.$('a[href="/dev/mailbox"]').length, 0);
});

test('in production the mailbox is off too', async (t) => {
  const env = await start({ NODE_ENV: 'production' });
  t.is((await new WebClient(env.baseUrl).get('/dev/mailbox')).status, 404);
});

test('behind https (BASE_URL) cookies are Secure and pages send HSTS', async (t) => {
  // The test server speaks plain http, like an app behind a TLS-terminating proxy.
  const env = await start({ BASE_URL: 'https://directory.example' });
  await createVerifiedUser(env.services.db, 'tls@example.com', 'tls password 12');
  const client = new WebClient(`http://127.0.0.1:${env.services.config.port}`);
  const page = await client.get('/signin');
  t.regex(page.headers.get('strict-transport-security')!, /max-age=/);
  t.true(page.headers.getSetCookie().every((c) => c.includes('; Secure')));
  const res = await client.signIn('tls@example.com', 'tls password 12');
  t.is(res.status, 303);
  const session = res.headers.getSetCookie().find((c) => c.startsWith('ld_session='))!;
  t.regex(session, /; Secure/);
});
