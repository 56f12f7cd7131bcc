import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { LRUCache } from 'lru-cache';
import { forbidden } from '../errors/errors.ts';
import { readToken, setCookie } from './cookies.ts';
import { html, type SafeHtml } from './html.ts';
import { currentSession } from './session.ts';
import { secureCookies, type WebServices } from './web-services.ts';

export const CSRF_FIELD = '_csrf';
/** Random per-browser value that anonymous forms' tokens are bound to (signed double submit). */
const ANON_COOKIE = 'ld_csrf';

declare module 'koa' {
  interface DefaultState {
    csrfToken?: string;
  }
}

/**
 * The CSRF token for forms of this request. Signed in: bound to the session (synchronizer token,
 * derived by HMAC so nothing extra is stored, and new at every sign-in). Anonymous: an HMAC of a
 * random cookie value, so a page of another site can neither read nor forge it.
 */
export async function csrfToken(ctx: Context, services: WebServices): Promise<string> {
  if (ctx.state.csrfToken) return ctx.state.csrfToken;
  const session = await currentSession(ctx, services);
  let subject: string;
  if (session) {
    subject = `session:${session.idHash}`;
  } else {
    let nonce = readToken(ctx, ANON_COOKIE);
    if (!nonce) {
      nonce = randomBytes(24).toString('base64url');
      setCookie(ctx, ANON_COOKIE, nonce, { secure: secureCookies(services) });
    }
    subject = `anon:${nonce}`;
  }
  ctx.state.csrfToken = await sign(services, subject);
  return ctx.state.csrfToken;
}

/** The hidden form field carrying the token. */
export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;

/**
 * Refuses every unsafe request (POST, PUT, PATCH, DELETE) whose form does not carry this
 * browser's token: 403 before any handler runs, so nothing changes.
 */
export function verifyCsrf(services: WebServices): Middleware {
  return async function checkCsrfToken(ctx, next) {
    if (['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) return next();
    const sent = (ctx.request as { body?: Record<string, unknown> }).body?.[CSRF_FIELD];
    const session = await currentSession(ctx, services);
    const nonce = readToken(ctx, ANON_COOKIE);
    const subject = session ? `session:${session.idHash}` : nonce && `anon:${nonce}`;
    if (typeof sent !== 'string' || !subject || !equal(sent, await sign(services, subject))) {
      throw forbidden('csrf_failed', 'The form was not sent from this site, or it is too old. Go back, reload the page and try again.');
    }
    return next();
  };
}

/**
 * Tokens by subject, per key: a signed-in person's pages sign the same subject again and again. The
 * key as a KeyObject: an HMAC made from a Buffer prepares the key anew, 6–7 times the hash's cost.
 */
const signed = new WeakMap<Buffer, { key: KeyObject; tokens: LRUCache<string, string> }>();

async function sign(services: WebServices, subject: string): Promise<string> {
  const secret = await services.secrets.get('csrf');
  let signer = signed.get(secret);
  if (!signer) signed.set(secret, (signer = { key: createSecretKey(secret), tokens: new LRUCache({ max: 20_000 }) }));
  let token = signer.tokens.get(subject);
  if (token === undefined) signer.tokens.set(subject, (token = createHmac('sha256', signer.key).update(subject).digest('base64url')));
  return token;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
