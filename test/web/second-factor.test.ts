import test, { type ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { pino } from 'pino';
import { Secret, TOTP } from 'otpauth';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { hashSessionId } from '../../src/auth/sessions.ts';
import { grant } from '../../src/domain/staff/roles.ts';
import { isRecent } from '../../src/domain/staff/second-factor.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { operationContext } from '../../src/operations/context.ts';
import { sessionPrincipal } from '../../src/operations/invoke.ts';
import { sessionFactorOf } from '../../src/operations/second-factor.ts';
import { asStaff } from '../../src/operations/staff.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';
import { WebClient, type WebResponse } from '../helpers/web.ts';

/**
 * The staff second factor: TOTP enrolment (secret as text beside a QR code, recovery codes once),
 * verification by code or recovery code, the gate of staff pages with its 12-hour and 10-minute
 * windows (a ManualClock), the factor the audit names, and the pages in Chromium at 390 px.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
// The factor's 12-hour window is tested here, so staff sessions must outlive it (test/web/staff-sessions.test.ts tests their end).
const LONG_STAFF_SESSIONS = { STAFF_SESSION_IDLE_MINUTES: '1440', STAFF_SESSION_HOURS: '48' };
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, LONG_STAFF_SESSIONS, { clock })));
test.after.always(() => close?.());

const PASSWORD = 'a second factor password';
const PAGE = '/account/second-factor';
const CHECK = `${PAGE}/check`;
const db = () => env.services.db;
const MINUTE = 60_000;

/** The code an authenticator app shows now (the test's clock), for a base32 key. */
const codeFor = (secret: string, at = clock.now()) =>
  TOTP.generate({ secret: Secret.fromBase32(secret.replace(/\s/g, '')), timestamp: at.getTime() });

async function staffMember(email: string, role: 'admin' | 'support' | null = 'support') {
  const user = await createVerifiedUser(db(), email, PASSWORD);
  if (role) await grant(db(), { userId: user.id, role, siteId: null, by: null, now: clock.now() });
  const client = new WebClient(env.baseUrl);
  if ((await client.signIn(email, PASSWORD)).status !== 303) throw new Error('sign-in failed');
  return { user, client };
}

async function post(client: WebClient, action: string, code: string, returnTo = CHECK): Promise<WebResponse> {
  const _csrf = await client.csrfFrom(PAGE);
  return client.post(action, { _csrf, code, return_to: returnTo });
}

/** Enrols through the pages; returns the secret as the page showed it and the recovery codes. */
async function enrol(t: ExecutionContext, client: WebClient) {
  const page = await client.get(`${PAGE}?return_to=${encodeURIComponent(CHECK)}`);
  t.is(page.status, 200);
  const secret = page.$('.totp-secret').text().replace(/\s/g, '');
  t.regex(secret, /^[A-Z2-7]{32}$/, 'the secret is shown as text');
  t.is(page.$('figure.qr svg').length, 1, 'beside a QR code');
  const done = await post(client, `${PAGE}/confirm`, codeFor(secret));
  t.is(done.status, 200);
  const codes = done
    .$('.recovery-codes code')
    .map((_, el) => done.$(el).text())
    .get();
  return { secret, codes, done };
}

test.serial(
  'enrolment shows the secret and a QR code; a wrong code is refused, a right one opens the gate and shows 10 recovery codes once',
  async (t) => {
    const { user, client } = await staffMember('enrol@example.com');
    const gate = await client.get(CHECK);
    t.is(gate.status, 303, 'a staff member without a factor is sent to the factor page');
    t.is(gate.location, `${PAGE}?return_to=${encodeURIComponent(CHECK)}`);

    const first = await client.get(gate.location!);
    const secret = first.$('.totp-secret').text().replace(/\s/g, '');
    t.is((await client.get(PAGE)).$('.totp-secret').text().replace(/\s/g, ''), secret, 'a reload shows the same key until confirmed');
    const stored = await db()('staff_totp').where({ user_id: user.id }).first();
    t.false(stored!.secret_box.toString('latin1').includes(secret), 'the key is stored sealed');

    const wrong = await post(client, `${PAGE}/confirm`, codeFor(secret, new Date(clock.now().getTime() - 10 * MINUTE)));
    t.is(wrong.status, 400);
    t.true(wrong.text.includes('That code is not right'));
    t.is((await client.get(CHECK)).status, 303, 'still not verified');

    const done = await post(client, `${PAGE}/confirm`, codeFor(secret));
    t.is(done.status, 200);
    const codes = done
      .$('.recovery-codes code')
      .map((_, el) => done.$(el).text())
      .get();
    t.is(codes.length, 10);
    t.is(new Set(codes).size, 10);
    const rows = await db()('staff_recovery_codes').where({ user_id: user.id });
    t.is(rows.length, 10);
    t.false(
      rows.some((r) => codes.includes(r.code_hash)),
      'codes are stored hashed',
    );

    const open = await client.get(CHECK);
    t.is(open.status, 200);
    t.true(open.text.includes('This session is verified.'));
    const again = await client.get(PAGE);
    t.is(again.$('.totp-secret').length, 0, 'the key is never shown again');
    t.is(again.$('.recovery-codes').length, 0, 'nor the recovery codes');
  },
);

test.serial('a new session verifies with a TOTP code (once), or a recovery code that works only once', async (t) => {
  const { client } = await staffMember('verify@example.com');
  const { secret, codes } = await enrol(t, client);
  clock.advance(MINUTE); // the next step: the enrolment's code is spent

  const other = new WebClient(env.baseUrl);
  await other.signIn('verify@example.com', PASSWORD);
  t.is((await other.get(CHECK)).status, 303);
  const wrong = await post(other, `${PAGE}/verify`, '000000');
  t.is(wrong.status, 400);
  const right = await post(other, `${PAGE}/verify`, codeFor(secret));
  t.is(right.status, 303);
  t.is(right.location, CHECK);
  t.is((await other.get(CHECK)).status, 200);

  const third = new WebClient(env.baseUrl);
  await third.signIn('verify@example.com', PASSWORD);
  t.is((await post(third, `${PAGE}/verify`, codeFor(secret))).status, 400, 'the same TOTP code does not work twice');
  t.is((await post(third, `${PAGE}/verify`, codes[3]!.toUpperCase())).status, 303, 'a recovery code works');
  t.is((await third.get(CHECK)).status, 200);

  const fourth = new WebClient(env.baseUrl);
  await fourth.signIn('verify@example.com', PASSWORD);
  const reused = await post(fourth, `${PAGE}/verify`, codes[3]!);
  t.is(reused.status, 400, 'a used recovery code cannot be reused');
  t.true(reused.text.includes('used already'));
});

test.serial('wrong codes are rate-limited per person', async (t) => {
  const { client } = await staffMember('limited@example.com');
  const { secret } = await enrol(t, client);
  clock.advance(MINUTE);
  const other = new WebClient(env.baseUrl);
  await other.signIn('limited@example.com', PASSWORD);
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push((await post(other, `${PAGE}/verify`, '123456')).status);
  t.deepEqual(statuses, [400, 400, 400, 400, 400, 429]);
  const blocked = await post(other, `${PAGE}/verify`, codeFor(secret));
  t.is(blocked.status, 429, 'even a right code waits for the window');
});

test.serial('a verified factor counts for 12 hours; money actions want one from the last 10 minutes', async (t) => {
  const { user, client } = await staffMember('windows@example.com');
  const { secret } = await enrol(t, client);
  const ctx = await operationContext(env.services, {
    log: pino({ level: 'silent' }),
    requestId: 'test',
    host: new URL(env.baseUrl).host,
    principal: sessionPrincipal(user.id, hashSessionId(client.cookies.get('ld_session')!)),
  });
  t.true(isRecent(await sessionFactorOf(ctx), clock.now()));
  t.is((await asStaff(ctx, ['support'])).factor, 'totp', 'staff actions of this session name the factor');

  t.is((await client.get(`${CHECK}/recent`)).status, 200);

  clock.advance(11 * MINUTE);
  t.false(isRecent(await sessionFactorOf(ctx), clock.now()), 'after 10 minutes, not recent enough for money');
  t.is((await client.get(CHECK)).status, 200, 'but still verified');
  const money = await client.get(`${CHECK}/recent`);
  t.is(money.status, 303, 'requireRecentFactor asks again');
  t.is(money.location, `${PAGE}?return_to=${encodeURIComponent(`${CHECK}/recent`)}&again=1`);
  t.true((await client.get(money.location!)).text.includes('Money actions need a code from the last 10 minutes.'));
  const fresh = await post(client, `${PAGE}/verify`, codeFor(secret), `${CHECK}/recent`);
  t.is(fresh.location, `${CHECK}/recent`);
  t.is((await client.get(`${CHECK}/recent`)).status, 200);

  clock.advance(12 * 60 * MINUTE);
  const expired = await client.get(CHECK);
  t.is(expired.status, 303, 'after 12 hours the factor is asked again');
  t.is((await asStaff(ctx, ['support'])).factor, null);
  t.is((await post(client, `${PAGE}/verify`, codeFor(secret))).status, 303);
  t.is((await client.get(CHECK)).status, 200);
});

test.serial('people without a staff role are refused the factor pages', async (t) => {
  const { client } = await staffMember('visitor@example.com', null);
  t.is((await client.get(PAGE)).status, 403);
  t.is((await client.get(CHECK)).status, 403);
  const anonymous = await new WebClient(env.baseUrl).get(CHECK);
  t.is(anonymous.status, 303);
  t.regex(anonymous.location!, /^\/signin\?return_to=/);
});

async function checkPage(t: ExecutionContext, page: Page, what: string) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  t.true(overflow <= 0, `${what}: no sideways scroll at 390 px (${overflow} px too wide)`);
}

test.serial('in Chromium at 390 px: enrol, recovery codes, verify — axe clean', async (t) => {
  t.timeout(90_000);
  const email = 'browser-factor@example.com';
  const user = await createVerifiedUser(db(), email, PASSWORD);
  await grant(db(), { userId: user.id, role: 'admin', siteId: null, by: null, now: clock.now() });
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  await page.goto(CHECK);
  await page.getByRole('heading', { name: 'Set up your second factor' }).waitFor();
  await checkPage(t, page, 'the enrolment page');
  const secret = (await page.locator('.totp-secret').textContent())!.replace(/\s/g, '');
  await page.getByLabel('Code from your app').fill(codeFor(secret));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor();
  await checkPage(t, page, 'the recovery codes page');
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.getByText('This session is verified.').waitFor();

  clock.advance(13 * 60 * MINUTE);
  await page.goto(CHECK);
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
  await page.getByLabel('Code', { exact: true }).fill('111111');
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByText('That code is not right').waitFor();
  await checkPage(t, page, 'the verification page with an error');
  await page.getByLabel('Code', { exact: true }).fill(codeFor(secret));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByText('This session is verified.').waitFor();
  t.true(page.url().endsWith(CHECK));
});
