import http from 'node:http';
import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { loadConfig } from '../../src/config/config.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { WebClient } from '../helpers/web.ts';
import { devMailboxNotice } from '../../src/web/pages/dev-mailbox.ts';

const envs: TestEnv[] = [];
/** Production needs a real payment provider configured (the test provider is refused there). */
const PRODUCTION = {
  NODE_ENV: 'production',
  STRIPE_SECRET_KEY: 'sk_test_x',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
};
test.after.always(() => Promise.all(envs.map((e) => e.close())));

async function start(settings: Record<string, string>) {
  const env = await startTestEnv(import.meta.url, settings);
  envs.push(env);
  return env;
}

test('the mailbox page is on only without SMTP_URL and outside production', (t) => {
  t.true(loadConfig({}).devMailbox);
  t.false(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).devMailbox);
  t.false(loadConfig(PRODUCTION).devMailbox);
  t.is(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525' }).mail.smtpUrl, 'smtp://127.0.0.1:2525');
});

test('the mailbox is on by default only for a loopback BASE_URL; DEV_MAILBOX decides explicitly', (t) => {
  for (const base of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://127.1.2.3', 'http://[::1]:3000', 'http://app.localhost']) {
    t.true(loadConfig({ BASE_URL: base }).devMailbox, base);
  }
  // Public hosts, and names that only look like loopback, do not get it (a plain `npm start` on a server).
  for (const base of [
    'https://directory.example',
    'http://10.0.0.5:3000',
    'http://0.0.0.0:3000',
    'http://127.0.0.1.evil.example',
    'http://localhost.evil.example',
    'http://[::ffff:127.0.0.1]',
  ]) {
    t.false(loadConfig({ BASE_URL: base }).devMailbox, base);
  }
  t.true(loadConfig({ BASE_URL: 'https://staging.example', DEV_MAILBOX: 'true' }).devMailbox);
  t.false(loadConfig({ BASE_URL: 'http://localhost:3000', DEV_MAILBOX: 'false' }).devMailbox);
  t.throws(() => loadConfig({ DEV_MAILBOX: 'maybe' }), { message: /DEV_MAILBOX/ });
});

test('start-up says whether the mailbox is served', (t) => {
  const on = loadConfig({ BASE_URL: 'http://localhost:3000' });
  t.regex(devMailboxNotice(on), /^http:\/\/localhost:3000\/dev\/mailbox is ON/);
  t.regex(devMailboxNotice(on), /DEV_MAILBOX=false/);
  t.regex(devMailboxNotice(loadConfig({ BASE_URL: 'https://directory.example' })), /^off .*DEV_MAILBOX=true/);
});

test('a public BASE_URL without SMTP_URL does not serve mail (reset links) to anyone', async (t) => {
  const env = await start({ BASE_URL: 'https://directory.example' });
  const [{ id }] = await env.services.db('mail_outbox').insert(
    {
      to_address: 'victim@example.com',
      subject: 'Reset your password',
      body_text: 'https://directory.example/reset-password?token=secret-77',
    },
    ['id'],
  );
  const client = new WebClient(`http://127.0.0.1:${env.services.config.port}`);
  for (const path of ['/dev/mailbox', `/dev/mailbox/${id}`]) {
    const res = await client.get(path);
    t.is(res.status, 404, path);
    t.false(res.text.includes('secret-77'), path);
    t.false(res.text.includes('Reset your password'), path);
  }
  t.is((await client.get('/signup')).$('a[href="/dev/mailbox"]').length, 0);
});

/** GET `path` of the env's server with this Host header (fetch does not let a caller set one). */
function getWithHost(env: TestEnv, path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: env.services.config.port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
  });
}

test('DEV_MAILBOX=true serves the mailbox on a non-loopback BASE_URL (a staging host), to that host only', async (t) => {
  const env = await start({ BASE_URL: 'https://staging.example', DEV_MAILBOX: 'true' });
  await env.services.db('mail_outbox').insert({ to_address: 'dev@example.com', subject: 'staging-subject-5', body_text: 'hello' });
  const res = await getWithHost(env, '/dev/mailbox', 'staging.example');
  t.is(res.status, 200);
  t.true(res.text.includes('staging-subject-5'));
  const other = await getWithHost(env, '/dev/mailbox', `127.0.0.1:${env.services.config.port}`);
  t.is(other.status, 404);
  t.false(other.text.includes('staging-subject-5'));
});

test('the mailbox answers only to BASE_URL’s host: a rebound name (DNS rebinding) gets a 404', async (t) => {
  const env = await start({});
  const [{ id }] = await env.services
    .db('mail_outbox')
    .insert({ to_address: 'victim@example.com', subject: 'rebind-subject-9', body_text: 'token' }, ['id']);
  const own = new URL(env.baseUrl).host;
  t.is((await getWithHost(env, '/dev/mailbox', own)).status, 200);
  for (const host of ['attacker.example', `attacker.example:${env.services.config.port}`]) {
    for (const path of ['/dev/mailbox', `/dev/mailbox/${id}`]) {
      const res = await getWithHost(env, path, host);
      t.is(res.status, 404, `${host}${path}`);
      t.false(res.text.includes('rebind-subject-9'), `${host}${path}`);
    }
  }
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
  const env = await start(PRODUCTION);
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
