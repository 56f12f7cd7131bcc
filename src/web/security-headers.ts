import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';

declare module 'koa' {
  interface DefaultState {
    /** Per-response nonce that our own inline <style> and <script> elements carry. */
    cspNonce?: string;
  }
}

/**
 * Headers of every page: a CSP without 'unsafe-inline' (our inline style and script carry a
 * per-response nonce), no framing, no referrer (reset links carry their token in the URL), and
 * no caching (pages show personal data and one-time keys).
 */
export function securityHeaders(options: { https: boolean }): Middleware {
  return async function setSecurityHeaders(ctx, next) {
    const nonce = randomBytes(16).toString('base64');
    ctx.state.cspNonce = nonce;
    ctx.set({
      'Content-Security-Policy': [
        "default-src 'self'",
        `script-src 'nonce-${nonce}'`,
        `style-src 'nonce-${nonce}'`,
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join('; '),
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    });
    if (options.https) ctx.set('Strict-Transport-Security', 'max-age=31536000');
    await next();
  };
}
