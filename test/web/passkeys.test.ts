import test, { type ExecutionContext } from 'ava';
import type { Browser, Page } from 'playwright-core';
import { pino } from 'pino';
import { Secret, TOTP } from 'otpauth';
import { createVerifiedUser } from '../../src/auth/accounts.ts';
import { hashSessionId } from '../../src/auth/sessions.ts';
import { grant } from '../../src/domain/staff/roles.ts';
import { ManualClock } from '../../src/domain/time/clock.ts';
import { operationContext } from '../../src/operations/context.ts';
import { sessionPrincipal } from '../../src/operations/invoke.ts';
import { asStaff } from '../../src/operations/staff.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { signInOnPage, startBrowserTestEnv } from '../helpers/browser.ts';
import type { TestEnv } from '../helpers/env.ts';

/**
 * Passkeys as a staff second factor, in Chromium with its virtual authenticator (CDP): added and
 * named on the factor page, used to verify a session (the factor is `passkey`), removed; and the
 * bad answers posted straight to the routes: a wrong, reused, expired or tampered one, a counter
 * gone backwards, a wrong origin, and garbage — each a clear 4xx, nothing stored.
 */

const clock = new ManualClock(new Date());
let env: TestEnv;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
// WebAuthn refuses IP addresses as relying-party ids: this env's BASE_URL is http://localhost:PORT.
test.before(async () => ({ env, browser, close } = await startBrowserTestEnv(import.meta.url, {}, { clock, host: 'localhost' })));
test.after.always(() => close?.());

const PASSWORD = 'a passkey test password';
const PAGE = '/account/second-factor';
const CHECK = `${PAGE}/check`;
const db = () => env.services.db;

type Mode = 'create' | 'get';

/**
 * In the page: asks the server for options, runs the ceremony on the virtual authenticator and
 * returns the answer as the page's script would post it (not posted).
 */
function ceremony(page: Page, mode: Mode): Promise<any> {
  return page.evaluate(async (m) => {
    const b64 = (buf: ArrayBuffer) =>
      btoa(String.fromCharCode(...new Uint8Array(buf)))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
    const buf = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)).buffer;
    const csrf = (document.querySelector('input[name=_csrf]') as HTMLInputElement).value;
    const url = m === 'create' ? '/account/second-factor/passkeys/options' : '/account/second-factor/passkey/options';
    const o = await (await fetch(url, { method: 'POST', body: new URLSearchParams({ _csrf: csrf }) })).json();
    o.challenge = buf(o.challenge);
    if (o.user) o.user.id = buf(o.user.id);
    for (const c of o.excludeCredentials ?? o.allowCredentials ?? []) c.id = buf(c.id);
    const cred = (
      m === 'create' ? await navigator.credentials.create({ publicKey: o }) : await navigator.credentials.get({ publicKey: o })
    ) as any;
    const r = cred.response;
    const response: Record<string, unknown> = { clientDataJSON: b64(r.clientDataJSON) };
    if (m === 'create') Object.assign(response, { attestationObject: b64(r.attestationObject), transports: r.getTransports() });
    else Object.assign(response, { authenticatorData: b64(r.authenticatorData), signature: b64(r.signature) });
    return { id: cred.id, rawId: b64(cred.rawId), type: cred.type, clientExtensionResults: {}, response };
  }, mode);
}

/** Posts an answer as the page's script does (form fields, the page's CSRF token); status and JSON. */
async function postAnswer(page: Page, path: string, credential: unknown, extra: Record<string, string> = {}) {
  const csrf = await page.locator('input[name=_csrf]').first().inputValue();
  const text = typeof credential === 'string' ? credential : JSON.stringify(credential);
  const res = await page.request.post(path, { form: { _csrf: csrf, credential: text, ...extra } });
  return { status: res.status(), type: res.headers()['content-type'] ?? '', body: await res.json() };
}

const sessionHash = async (page: Page) => hashSessionId((await page.context().cookies()).find((c) => c.name === 'ld_session')!.value);
const factorOf = async (page: Page) =>
  (
    await db()('web_session_factors')
      .where({ session_id_hash: await sessionHash(page) })
      .first()
  )?.factor;

/** Recodes clientDataJSON with one field changed (its signature, if any, no longer matches). */
function withClientData(answer: any, change: Record<string, string>) {
  const data = JSON.parse(Buffer.from(answer.response.clientDataJSON, 'base64url').toString());
  return {
    ...answer,
    response: { ...answer.response, clientDataJSON: Buffer.from(JSON.stringify({ ...data, ...change })).toString('base64url') },
  };
}

async function checkPage(t: ExecutionContext, page: Page, what: string) {
  t.deepEqual(await seriousViolations(page), [], `axe on ${what}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  t.true(overflow <= 0, `${what}: no sideways scroll at 390 px`);
}

test.serial('in Chromium: add a passkey, verify a new session with it, refuse every bad answer, remove it', async (t) => {
  t.timeout(180_000);
  const email = 'passkey@example.com';
  const user = await createVerifiedUser(db(), email, PASSWORD);
  await grant(db(), { userId: user.id, role: 'admin', siteId: null, by: null, now: clock.now() });
  const context = await browser.newContext({ baseURL: env.baseUrl, viewport: { width: 390, height: 844 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });

  // TOTP first: passkeys are added by a verified session.
  await signInOnPage(page, email, PASSWORD);
  await page.goto(CHECK);
  const secret = (await page.locator('.totp-secret').textContent())!.replace(/\s/g, '');
  await page.getByLabel('Code from your app').fill(TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() }));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('link', { name: 'Continue' }).click();
  await page.getByText('This session is verified.').waitFor();

  await page.goto(PAGE);
  await page.getByRole('heading', { name: 'Your second factor', exact: true }).waitFor();
  await checkPage(t, page, 'the factor page of a verified session');

  // A registration made for another origin is refused; nothing is stored.
  const forged = withClientData(await ceremony(page, 'create'), { origin: 'http://evil.example' });
  const wrongOrigin = await postAnswer(page, `${PAGE}/passkeys`, forged, { name: 'Forged' });
  t.is(wrongOrigin.status, 400);
  t.is(wrongOrigin.type.split(';')[0], 'application/problem+json');
  t.is(wrongOrigin.body.code, 'passkey_refused');
  t.regex(wrongOrigin.body.detail, /origin/i);
  t.is((await db()('staff_passkeys').where({ user_id: user.id })).length, 0);

  await page.getByLabel('Name of the passkey').fill('Work laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await page.getByText('The passkey is added.').waitFor();
  t.is(await page.locator('.passkeys li strong').textContent(), 'Work laptop');
  await checkPage(t, page, 'the factor page with a passkey');
  const [key] = await db()('staff_passkeys').where({ user_id: user.id });
  t.truthy(key);
  t.is(key.name, 'Work laptop');
  t.true(key.public_key.length > 20);
  t.deepEqual(key.transports, ['internal']);
  t.is(key.last_used_at, null);

  // A new session (the old cookie dropped): the gate asks, the page offers the passkey.
  await context.clearCookies();
  await signInOnPage(page, email, PASSWORD);
  await page.goto(CHECK);
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor();
  await page.getByRole('button', { name: 'Use a passkey' }).waitFor();
  await checkPage(t, page, 'the verification page with a passkey');
  const VERIFY = `${PAGE}/passkey/verify`;
  const counter = async () => Number((await db()('staff_passkeys').where({ id: key.id }).first())!.counter);
  const unchanged = async (what: string, count: number) => {
    t.is(await factorOf(page), undefined, `${what}: the session is not verified`);
    t.is(await counter(), count, `${what}: the counter did not move`);
  };

  const stale = await ceremony(page, 'get');
  await ceremony(page, 'get'); // a newer challenge replaces the one `stale` signed
  const before = await counter();
  const wrongChallenge = await postAnswer(page, VERIFY, stale);
  t.is(wrongChallenge.status, 400);
  t.is(wrongChallenge.body.code, 'passkey_refused');
  await unchanged('a wrong challenge', before);

  const tampered = await ceremony(page, 'get');
  const flipped = {
    ...tampered,
    response: { ...tampered.response, signature: tampered.response.signature.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A')) },
  };
  t.is((await postAnswer(page, VERIFY, flipped)).status, 400, 'a tampered signature');
  await unchanged('a tampered signature', before);

  const otherOrigin = withClientData(await ceremony(page, 'get'), { origin: 'http://evil.example' });
  t.is((await postAnswer(page, VERIFY, otherOrigin)).status, 400, 'another origin');
  await unchanged('another origin', before);

  const late = await ceremony(page, 'get');
  clock.advance(6 * 60_000);
  const expired = await postAnswer(page, VERIFY, late);
  t.is(expired.status, 400);
  t.regex(expired.body.detail, /expired or was used/);
  await unchanged('an expired challenge', before);

  const garbage = await postAnswer(page, VERIFY, 'not json at all');
  t.is(garbage.status, 400);
  t.regex(garbage.body.detail, /not a passkey answer/);

  await db()('staff_passkeys').where({ id: key.id }).update({ counter: 1_000_000 });
  const cloned = await postAnswer(page, VERIFY, await ceremony(page, 'get'));
  t.is(cloned.status, 400, 'a counter going backwards');
  t.regex(cloned.body.detail, /counter/);
  await unchanged('a counter going backwards', 1_000_000);
  await db()('staff_passkeys').where({ id: key.id }).update({ counter: before });

  // The page's own button: verified with a passkey, back where the gate sent us.
  await page.goto(CHECK);
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await page.getByText('This session is verified.').waitFor();
  t.true(page.url().endsWith(CHECK));
  t.is(await factorOf(page), 'passkey');
  const used = (await db()('staff_passkeys').where({ id: key.id }).first())!;
  t.true(Number(used.counter) > before, 'the counter moved forward');
  t.truthy(used.last_used_at);
  const ctx = await operationContext(env.services, {
    log: pino({ level: 'silent' }),
    requestId: 'test',
    host: new URL(env.baseUrl).host,
    principal: sessionPrincipal(user.id, await sessionHash(page)),
  });
  t.is((await asStaff(ctx, ['admin'])).factor, 'passkey', 'the audit names the passkey');

  // An answer works once.
  await context.clearCookies();
  await signInOnPage(page, email, PASSWORD);
  await page.goto(CHECK);
  const once = await ceremony(page, 'get');
  const first = await postAnswer(page, VERIFY, once, { return_to: CHECK });
  t.is(first.status, 200);
  t.deepEqual(first.body, { ok: true, redirect: CHECK });
  const replayed = await postAnswer(page, VERIFY, once);
  t.is(replayed.status, 400, 'a replayed answer');
  t.regex(replayed.body.detail, /expired or was used/);

  // Remove it from the list.
  await page.goto(PAGE);
  await page.getByRole('button', { name: 'Remove the passkey Work laptop' }).click();
  await page.getByText('The passkey is removed.').waitFor();
  t.is((await db()('staff_passkeys').where({ user_id: user.id })).length, 0);
});

test.serial('without a verified session nothing can be added; people without a staff role get 403', async (t) => {
  const email = 'passkey-unverified@example.com';
  const user = await createVerifiedUser(db(), email, PASSWORD);
  await grant(db(), { userId: user.id, role: 'support', siteId: null, by: null, now: clock.now() });
  const context = await browser.newContext({ baseURL: env.baseUrl });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await signInOnPage(page, email, PASSWORD);
  await page.goto(PAGE);
  const csrf = await page.locator('input[name=_csrf]').first().inputValue();
  const res = await page.request.post(`${PAGE}/passkeys/options`, { form: { _csrf: csrf } });
  t.is(res.status(), 403);
  t.regex((await res.json()).detail, /Verify this session/);
  const none = await page.request.post(`${PAGE}/passkey/options`, { form: { _csrf: csrf } });
  t.is(none.status(), 400, 'no passkey to use');
  const remove = await page.request.post(`${PAGE}/remove`, { form: { _csrf: csrf }, maxRedirects: 0 });
  t.is(remove.status(), 200, 'removing factors asks for one first');
  t.is((await db()('staff_totp').where({ user_id: user.id })).length, 1, 'the pending enrolment stays');

  const visitor = await createVerifiedUser(db(), 'passkey-visitor@example.com', PASSWORD);
  t.truthy(visitor);
  const other = await browser.newContext({ baseURL: env.baseUrl });
  t.teardown(() => other.close());
  const vp = await other.newPage();
  await signInOnPage(vp, 'passkey-visitor@example.com', PASSWORD);
  const token = await vp.locator('input[name=_csrf]').first().inputValue();
  t.is((await vp.request.post(`${PAGE}/passkey/options`, { form: { _csrf: token } })).status(), 403);
});
