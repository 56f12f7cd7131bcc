import type { Context } from 'koa';

export interface CookieOptions {
  /** Lifetime; absent makes a browser-session cookie. */
  maxAgeSeconds?: number;
  /** Sent only over https: on when the public origin is https. */
  secure: boolean;
}

/**
 * Sets an HttpOnly, SameSite=Lax cookie on path /. Written by hand rather than through
 * ctx.cookies because the app may sit behind a TLS-terminating proxy (the request is plain
 * http, the cookie must still be Secure), which Koa's cookie jar refuses.
 */
export function setCookie(ctx: Context, name: string, value: string, options: CookieOptions): void {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push('Secure');
  ctx.append('Set-Cookie', parts.join('; '));
}

export function clearCookie(ctx: Context, name: string, options: Pick<CookieOptions, 'secure'>): void {
  setCookie(ctx, name, '', { ...options, maxAgeSeconds: 0 });
}

/** A cookie's value when it is a plain token (base64url), else undefined. */
export function readToken(ctx: Context, name: string): string | undefined {
  const value = ctx.cookies.get(name);
  return value && /^[A-Za-z0-9_-]{16,100}$/.test(value) ? value : undefined;
}
