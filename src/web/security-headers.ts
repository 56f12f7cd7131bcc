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
 * no caching (pages show personal data and one-time keys). Also set on the pages the OAuth
 * server renders itself (src/auth/oauth/authorization-errors.ts).
 */
export function pageSecurityHeaders(nonce: string, options: { https: boolean }): Record<string, string> {
  return {
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
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  };
}

/** A fresh CSP nonce (128 bits). */
export const cspNonce = () => randomBytes(16).toString('base64');

/** The page headers on every response of the web router; the nonce is kept for the page's inline elements. */
export function securityHeaders(options: { https: boolean }): Middleware {
  return async function setSecurityHeaders(ctx, next) {
    const nonce = cspNonce();
    ctx.state.cspNonce = nonce;
    ctx.set(pageSecurityHeaders(nonce, options));
    await next();
  };
}
