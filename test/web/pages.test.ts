import { createHash } from 'node:crypto';
import test from 'ava';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { api, startTestEnv, type TestEnv } from '../helpers/env.ts';
import { linkIn, mailsTo, WebClient } from '../helpers/web.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

const PASSWORD = 'pages password 1';

async function signedIn(email: string) {
  const user = await createVerifiedUser(env.services.db, email, PASSWORD);
  const client = new WebClient(env.baseUrl);
  await client.signIn(email, PASSWORD);
  return { user, client, _csrf: await client.csrfFrom('/account/keys') };
}

test('pages carry a CSP naming their inline style and script by hash, no framing, no referrer, no caching', async (t) => {
  const res = await new WebClient(env.baseUrl).get('/signin');
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type')!, /^text\/html; charset=utf-8/);
  const csp = res.headers.get('content-security-policy')!;
  t.true(csp.split('; ').includes(`style-src ${sha256(res.$('style').html()!)}`), csp);
  t.true(csp.split('; ').includes("script-src 'none'"), 'a page without a script allows none');
  t.notRegex(csp, /unsafe-inline|unsafe-eval|nonce-/);
  t.regex(csp, /frame-ancestors 'none'/);
  t.regex(csp, /object-src 'none'/);
  t.is(res.headers.get('x-frame-options'), 'DENY');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('cache-control'), 'private, no-store');
  t.is(res.headers.get('strict-transport-security'), null, 'no HSTS on http');
  t.truthy(res.headers.get('x-request-id'));

  // A page with a script names exactly that script.
  const { client, _csrf } = await signedIn('csp-script@example.com');
  t.is((await client.post('/account/keys', { _csrf, name: 'CSP', scopes: 'account:read' })).status, 303);
  const keys = await client.get('/account/keys'); // shows the new key once, with its copy button's script
  const scripts = keys.$('script:not([type])');
  t.is(scripts.length, 1);
  t.true(
    keys.headers
      .get('content-security-policy')!
      .split('; ')
      .includes(`script-src ${sha256(scripts.html()!)}`),
  );
});

test('unknown pages are HTML 404s; REST, health and the lead’s paths are left alone', async (t) => {
  const client = new WebClient(env.baseUrl);
  for (const path of ['/nope', '/account/nope', '/dev/mailbox/abc', '/dev/mailbox/999999']) {
    const res = await client.get(path);
    t.is(res.status, 404, path);
    t.regex(res.headers.get('content-type')!, /^text\/html/);
    t.truthy(res.headers.get('content-security-policy'));
  }
  const _csrf = await client.csrfFrom('/signin');
  t.is((await client.post('/nope', { _csrf })).status, 404);
  const rest = await api(env, 'GET', '/nope');
  t.is(rest.status, 404);
  t.regex(rest.headers.get('content-type')!, /problem\+json/);
  t.is((await api(env, 'GET', '/products')).status, 200);
  const health = await client.get('/healthz');
  t.deepEqual(JSON.parse(health.text), { status: 'ok' });
  for (const path of ['/mcp', '/.well-known/oauth-authorization-server']) {
    const res = await client.get(path);
    t.is(res.headers.get('content-security-policy'), null, `${path} is not a web page`);
  }
  // The authorization server answers its own path; its error page carries our page headers.
  const authorize = await client.get('/oauth/authorize');
  t.is(authorize.status, 400);
  t.regex(authorize.text, /This sign-in request cannot continue/);
  t.truthy(authorize.headers.get('content-security-policy'));
  // The OAuth consent step is a page of ours (sign-in first), with the page headers.
  const consent = await client.get('/consent/x');
  t.is(consent.status, 303);
  t.truthy(consent.headers.get('content-security-policy'));
  t.is((await fetch(`${env.baseUrl}/`, { method: 'HEAD' })).status, 200);
});

test('hostile text is escaped wherever it is shown', async (t) => {
  const client = new WebClient(env.baseUrl);
  const evil = '"><script>alert(1)</script>';
  const _csrf = await client.csrfFrom('/signup');
  const res = await client.post('/signup', { _csrf, email: `${evil}@example.com`, password: PASSWORD });
  t.is(res.status, 400);
  t.false(res.text.includes('<script>alert(1)'));
  t.is(res.$('#f-email').val(), `${evil}@example.com`);

  const owner = await signedIn('escape@example.com');
  const made = await owner.client.post('/account/keys', {
    _csrf: owner._csrf,
    name: '<img src=x onerror=alert(1)>',
    scopes: 'account:read',
  });
  t.is(made.status, 303);
  const list = await owner.client.get('/account/keys');
  t.false(list.text.includes('<img src=x'));
  t.is(list.$('#new-key-title').length, 1, 'the one-time reveal');
  t.is(list.$('.notice').text(), 'Key “<img src=x onerror=alert(1)>” created.');
  t.is(list.$('tbody td').first().contents().first().text(), '<img src=x onerror=alert(1)>');
  t.is((await owner.client.get('/?notice=constructor')).$('.notice').length, 0);
  t.is((await owner.client.get('/?notice=%3Cb%3Ehi')).$('.notice').length, 0);
});

test('sign-up: bad input → 400 naming the field; nothing stored', async (t) => {
  const client = new WebClient(env.baseUrl);
  const _csrf = await client.csrfFrom('/signup');
  const cases: Array<[Record<string, string | string[]>, string, RegExp]> = [
    [{ email: 'new@example.com', password: 'short' }, 'password', /at least 10/],
    [{ email: 'new@example.com', password: 'p'.repeat(1001) }, 'password', /at most 1000/],
    [{ email: 'new@example.com' }, 'password', /Enter a password/],
    [{ email: 'not-an-email', password: PASSWORD }, 'email', /like name@example\.com/],
    [{ email: '', password: PASSWORD }, 'email', /Enter your email/],
    [{ email: ['new@example.com', 'x@example.com'], password: PASSWORD }, 'email', /Enter your email/],
  ];
  for (const [form, field, message] of cases) {
    const res = await client.post('/signup', { _csrf, ...form });
    t.is(res.status, 400, JSON.stringify(form).slice(0, 60));
    t.regex(res.$(`#f-${field}-error`).text(), message);
    t.is(res.$(`#f-${field}`).attr('aria-invalid'), 'true');
    t.regex(res.$('.error-summary').text(), message);
  }
  const big = await client.post('/signup', { _csrf, email: 'new@example.com', password: PASSWORD, filler: 'x'.repeat(70_000) });
  t.is(big.status, 400);
  t.is(await env.services.db('users').where({ email: 'new@example.com' }).first(), undefined);
});

test('sign-up with a registered address looks the same and mails the owner instead', async (t) => {
  await createVerifiedUser(env.services.db, 'taken@example.com', PASSWORD);
  const pages = [];
  for (const email of ['taken@example.com', 'fresh@example.com']) {
    const client = new WebClient(env.baseUrl);
    const _csrf = await client.csrfFrom('/signup');
    const res = await client.post('/signup', { _csrf, email, password: 'someone else 123' });
    t.is(res.status, 200);
    pages.push(res.$('main').text().replace(email, 'EMAIL'));
  }
  t.is(pages[0], pages[1]);
  t.deepEqual(
    (await mailsTo(env.services.db, 'taken@example.com')).map((m) => m.subject),
    ['You already have an account'],
  );
  t.is((await new WebClient(env.baseUrl).signIn('taken@example.com', PASSWORD)).status, 303, 'the password is unchanged');
});

test('signing up again before verifying replaces the password and voids the first link', async (t) => {
  const email = 'twice@example.com';
  const client = new WebClient(env.baseUrl);
  for (const password of ['first password 1', 'second password 2']) {
    const _csrf = await client.csrfFrom('/signup');
    t.is((await client.post('/signup', { _csrf, email, password })).status, 200);
  }
  const [first, second] = await mailsTo(env.services.db, email);
  const path = (link: string) => new URL(link).pathname + new URL(link).search;
  t.is((await client.get(path(linkIn(first!, '/verify-email')))).status, 400);
  t.is((await client.get(path(linkIn(second!, '/verify-email')))).location, '/signin?notice=verified');
  t.is((await client.get(path(linkIn(second!, '/verify-email')))).status, 400, 'single use');
  t.is((await new WebClient(env.baseUrl).signIn(email, 'first password 1')).status, 422);
  t.is((await new WebClient(env.baseUrl).signIn(email, 'second password 2')).status, 303);
  t.is((await client.get('/verify-email')).status, 400);
  t.is((await client.get('/verify-email?token=x&token=y')).status, 400);
});

test('an expired verification link does not verify', async (t) => {
  const email = 'late@example.com';
  const client = new WebClient(env.baseUrl);
  const _csrf = await client.csrfFrom('/signup');
  await client.post('/signup', { _csrf, email, password: PASSWORD });
  const user = await env.services.db('users').where({ email }).first('id');
  await env.services
    .db('account_tokens')
    .where({ user_id: user!.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const [mail] = await mailsTo(env.services.db, email);
  const link = new URL(linkIn(mail!, '/verify-email'));
  t.is((await client.get(link.pathname + link.search)).status, 400);
  t.is((await env.services.db('users').where({ email }).first())!.email_verified_at, null);
});

test('key form: bad name or scopes → 400 naming the field, nothing created; at most 50 keys', async (t) => {
  const { user, client, _csrf } = await signedIn('keys-form@example.com');
  const cases: Array<[Record<string, string | string[]>, string, RegExp]> = [
    [{ name: 'x' }, 'scopes', /at least one scope/],
    [{ name: 'x', scopes: 'root' }, 'scopes', /from the list/],
    [{ name: 'x', scopes: ['account:read', 'admin:all'] }, 'scopes', /from the list/],
    [{ name: '   ', scopes: 'account:read' }, 'name', /Give the key a name/],
    [{ name: 'n'.repeat(101), scopes: 'account:read' }, 'name', /at most 100/],
    [{ scopes: 'account:read' }, 'name', /Give the key a name/],
  ];
  for (const [form, field, message] of cases) {
    const res = await client.post('/account/keys', { _csrf, ...form });
    t.is(res.status, 400, JSON.stringify(form).slice(0, 60));
    t.regex(res.$(`#f-${field}-error`).text(), message);
  }
  t.is((await env.services.db('api_keys').where({ user_id: user.id })).length, 0);

  const made = await client.post('/account/keys', { _csrf, name: '  Agent  ', scopes: ['orders:write', 'orders:write', 'listings:write'] });
  t.is(made.status, 303);
  const [row] = await env.services.db('api_keys').where({ user_id: user.id });
  t.is(row.name, 'Agent');
  t.deepEqual([...row.scopes].sort(), ['listings:write', 'orders:write']);

  for (let i = 0; i < 49; i++) await createApiKey(env.services.db, user.id, `k${i}`, ['account:read']);
  const full = await client.post('/account/keys', { _csrf, name: 'one too many', scopes: 'account:read' });
  t.is(full.status, 409);
  t.is((await env.services.db('api_keys').where({ user_id: user.id })).length, 50);
});

test('the development mailbox lists mail and links only http(s) URLs', async (t) => {
  const db = env.services.db;
  const [{ id }] = await db('mail_outbox')
    .insert({ to_address: 'box@example.com', subject: '<b>Hi</b>', body_text: 'Go https://x.example/a?b=1&c=2 or javascript:alert(1) <i>' })
    .returning('id');
  const client = new WebClient(env.baseUrl);
  const list = await client.get('/dev/mailbox');
  t.is(list.status, 200);
  t.is(list.$(`a[href="/dev/mailbox/${id}"]`).text(), '<b>Hi</b>');
  const mail = await client.get(`/dev/mailbox/${id}`);
  t.is(mail.status, 200);
  t.deepEqual(
    mail
      .$('pre.mail a')
      .map((_, a) => mail.$(a).attr('href'))
      .get(),
    ['https://x.example/a?b=1&c=2'],
  );
  t.false(mail.text.includes('<i>'));
});

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
