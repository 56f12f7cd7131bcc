import test from 'ava';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { forgetFailures, slowDownMs } from '../../src/auth/signin-limiter.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { mailsTo, WebClient } from '../helpers/web.ts';

let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url, { SIGNIN_MAX_FAILURES_PER_IP: '8', SIGNIN_MAX_DELAY_SECONDS: '1' });
  await createVerifiedUser(env.services.db, 'target@example.com', PASSWORD);
  await createVerifiedUser(env.services.db, 'bystander@example.com', PASSWORD);
});
test.after.always(() => env?.close());
// Every attempt comes from 127.0.0.1, so each test starts from a clean slate and they run one by one.
test.beforeEach(() => signinPoints().delete());

/** The sign-in limiter's rows in the shared rate limiter. */
const signinPoints = () => env.services.db('rate_limits').where('key', 'like', 'signin-%');

const PASSWORD = 'the real password';

test.serial('five failures for one email → 429 with Retry-After, even with the right password', async (t) => {
  const client = new WebClient(env.baseUrl);
  for (let i = 0; i < 5; i++) {
    const res = await client.signIn('target@example.com', `guess ${i} wrong`);
    t.is(res.status, 422);
    t.is(res.$('#f-password-error').text(), 'Email or password is wrong.');
  }
  for (const password of ['guess 6 wrong', PASSWORD]) {
    const res = await client.signIn('TARGET@example.com', password);
    t.is(res.status, 429);
    const retryAfter = Number(res.headers.get('retry-after'));
    t.true(retryAfter > 880 && retryAfter <= 900, String(retryAfter));
    t.regex(res.$('.error-summary').text(), /Too many failed attempts\. Try again in 15 minutes/);
    t.false(client.cookies.has('ld_session'));
  }
  // Another address from the same client is not locked out by this one.
  t.is((await new WebClient(env.baseUrl).signIn('bystander@example.com', PASSWORD)).status, 303);
  // Once the failures leave the 15-minute window, the right password works again.
  await signinPoints().update({ expire: Date.now() - 1 });
  t.is((await client.signIn('target@example.com', PASSWORD)).status, 303);
});

test('the slow-down on one email doubles per failure up to the maximum, and starts at the per-email limit', (t) => {
  const limits = { perEmail: 5, maxDelaySeconds: 10 };
  t.deepEqual(
    [0, 4, 5, 6, 7, 8, 9, 50, 10_000].map((n) => slowDownMs(n, limits)),
    [0, 0, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000],
  );
});

test.serial('guesses on one account from many addresses never lock its owner out; they only slow attempts down', async (t) => {
  // Behind a proxy the client address comes from X-Forwarded-For: the attacker has many of them.
  const proxied = await startTestEnv(import.meta.url, { TRUST_PROXY_HOPS: '1', SIGNIN_MAX_DELAY_SECONDS: '1' });
  t.teardown(() => proxied.close());
  await createVerifiedUser(proxied.services.db, 'victim@example.com', PASSWORD);
  const attempt = async (password: string, address: string) => {
    const client = new WebClient(proxied.baseUrl);
    const _csrf = await client.csrfFrom('/signin');
    const started = performance.now();
    const res = await client.post('/signin', { _csrf, email: 'victim@example.com', password }, { 'x-forwarded-for': address });
    return { status: res.status, ms: performance.now() - started };
  };
  // 40 wrong guesses from 10 addresses, 4 each: under the per-address limits, far over the per-email one.
  const guesses = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(`wrong guess ${i}`, `203.0.113.${i % 10}`)));
  t.deepEqual([...new Set(guesses.map((g) => g.status))], [422], 'every guess is checked and refused, none is blocked');
  // The owner, from their own address, still gets in with the right password: slowed, not blocked.
  const owner = await attempt(PASSWORD, '198.51.100.7');
  t.is(owner.status, 303);
  t.true(owner.ms >= 900, `the attempt was slowed down (${owner.ms.toFixed(0)} ms)`);
  // One address guessing on to this account is blocked (the strict limits stay strict).
  t.is((await attempt('wrong again', '203.0.113.1')).status, 422);
  t.is((await attempt('wrong again', '203.0.113.1')).status, 429);
  t.is((await attempt(PASSWORD, '198.51.100.8')).status, 303);
});

test.serial('failures per client address → 429 for every email; X-Forwarded-For does not help', async (t) => {
  const client = new WebClient(env.baseUrl);
  for (let i = 0; i < 8; i++) t.is((await client.signIn(`nobody${i}@example.com`, 'whatever guess')).status, 422);
  t.is((await client.signIn('bystander@example.com', PASSWORD)).status, 429);
  const _csrf = await client.csrfFrom('/signin');
  const spoofed = await client.post(
    '/signin',
    { _csrf, email: 'bystander@example.com', password: PASSWORD },
    { 'x-forwarded-for': '203.0.113.9' },
  );
  t.is(spoofed.status, 429);
});

test.serial('twenty concurrent guesses: at most five are checked, the rest get 429', async (t) => {
  const clients = await Promise.all(
    Array.from({ length: 20 }, async () => {
      const client = new WebClient(env.baseUrl);
      return { client, _csrf: await client.csrfFrom('/signin') };
    }),
  );
  const statuses = await Promise.all(
    clients.map(({ client, _csrf }, i) => client.post('/signin', { _csrf, email: 'target@example.com', password: `parallel ${i}` })),
  ).then((all) => all.map((r) => r.status));
  t.true(statuses.filter((s) => s === 422).length <= 5, statuses.join(','));
  t.is(statuses.filter((s) => s === 422).length + statuses.filter((s) => s === 429).length, 20);
  // The email's counter counts only the attempts let through to the password check.
  const [{ points }] = await signinPoints().where('key', 'like', 'signin-email:%').select('points');
  t.true(points <= 5, String(points));
});

test.serial('a success forgets the earlier failures of that email', async (t) => {
  const client = new WebClient(env.baseUrl);
  for (let i = 0; i < 4; i++) t.is((await client.signIn('target@example.com', 'typo typo typo')).status, 422);
  t.is((await client.signIn('target@example.com', PASSWORD)).status, 303);
  const fresh = new WebClient(env.baseUrl);
  for (let i = 0; i < 4; i++) t.is((await fresh.signIn('target@example.com', 'typo typo typo')).status, 422);
  t.is((await fresh.signIn('target@example.com', PASSWORD)).status, 303);
});

test.serial('a password reset forgets the failures on that email from every address', async (t) => {
  const client = new WebClient(env.baseUrl);
  for (let i = 0; i < 5; i++) t.is((await client.signIn('target@example.com', `guess ${i} wrong`)).status, 422);
  t.is((await client.signIn('target@example.com', PASSWORD)).status, 429);
  await forgetFailures(env.services.db, 'Target@Example.com');
  t.is((await client.signIn('target@example.com', PASSWORD)).status, 303);
});

test.serial('an unverified address cannot sign in; the right password sends a new link, a wrong one says nothing', async (t) => {
  const email = 'unverified@example.com';
  const client = new WebClient(env.baseUrl);
  const _csrf = await client.csrfFrom('/signup');
  t.is((await client.post('/signup', { _csrf, email, password: PASSWORD })).status, 200);
  t.is((await mailsTo(env.services.db, email)).length, 1);

  const wrong = await client.signIn(email, 'not the password');
  t.is(wrong.status, 422);
  const right = await client.signIn(email, PASSWORD);
  t.is(right.status, 403);
  t.is(right.$('h1').text(), 'Confirm your email first');
  t.false(client.cookies.has('ld_session'));
  const mails = await mailsTo(env.services.db, email);
  t.deepEqual(
    mails.map((m) => m.subject),
    ['Confirm your email address', 'Confirm your email address'],
  );
});

test.serial('bad sign-in input → 400 with field messages, never a 500', async (t) => {
  const client = new WebClient(env.baseUrl);
  const _csrf = await client.csrfFrom('/signin');
  const cases: Array<[Record<string, string | string[]>, string]> = [
    [{ email: '', password: 'x' }, 'email'],
    [{ email: 'not-an-email', password: 'x' }, 'email'],
    [{ email: 'target@example.com', password: '' }, 'password'],
    [{ email: ['a@example.com', 'b@example.com'], password: 'x' }, 'email'],
    [{ 'email[$ne]': 'x', password: 'x' }, 'email'],
    [{ email: 'target@example.com', password: 'p'.repeat(5000) }, 'password'],
    [{ email: `${'a'.repeat(300)}@example.com`, password: 'x' }, 'email'],
  ];
  for (const [form, fieldName] of cases) {
    const res = await client.post('/signin', { _csrf, ...form });
    t.is(res.status, 400, JSON.stringify(form).slice(0, 80));
    t.true(res.$(`#f-${fieldName}-error`).text().length > 0, fieldName);
  }
  t.is(
    await signinPoints()
      .count({ n: '*' })
      .first()
      .then((r) => Number(r!.n)),
    0,
    'refused input is no attempt',
  );
});
