import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { LRUCache } from 'lru-cache';

/**
 * Sources beyond the page's own origin: where its scripts load from, what it frames and calls
 * (Stripe's pay form), where its forms may send the browser (OAuth consent, on to the client).
 */
export interface ExternalSources {
  script?: string[];
  frame?: string[];
  connect?: string[];
  form?: string[];
}

/** What a page's CSP allows inline: the texts of its <style> and <script> elements. */
export interface InlineContent {
  styles: readonly string[];
  scripts?: readonly string[];
  external?: ExternalSources;
}

/** Hashes already made: the inline texts are the layout's style and the pages' few scripts. */
const hashes = new LRUCache<string, string>({ max: 256 });

/** The CSP source expression naming one inline element by the SHA-256 of its text. */
export function cspHash(text: string): string {
  let hash = hashes.get(text);
  if (hash === undefined) {
    hash = `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    hashes.set(text, hash);
  }
  return hash;
}

/**
 * Headers of every page: a CSP without 'unsafe-inline' whose inline style and script are named by
 * their SHA-256 (not a per-response nonce: a page kept for visitors is sent byte for byte to many
 * of them, and a nonce must never be sent twice), no framing, no referrer (reset links carry their
 * token in the URL), and no caching by anyone (pages show personal data, CSRF tokens and one-time
 * keys; the public pages that are the same for every visitor say otherwise, src/web/public-caching.ts).
 * Also set on the pages the OAuth server renders itself (src/auth/oauth/authorization-errors.ts).
 */
export function pageSecurityHeaders(inline: InlineContent, options: { https: boolean }): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(inline),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cache-Control': 'private, no-store',
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  };
}

/** The CSP of a page holding these inline elements. */
export function contentSecurityPolicy(inline: InlineContent): string {
  const { external = {} } = inline;
  const scripts = [...(external.script ?? []), ...(inline.scripts ?? []).map(cspHash)];
  const styles = inline.styles.map(cspHash);
  return [
    "default-src 'self'",
    `script-src ${scripts.length ? scripts.join(' ') : "'none'"}`,
    `style-src ${styles.length ? styles.join(' ') : "'none'"}`,
    ...(external.frame ? [`frame-src ${external.frame.join(' ')}`] : []),
    ...(external.connect ? [`connect-src 'self' ${external.connect.join(' ')}`] : []),
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action ${["'self'", ...(external.form ?? [])].join(' ')}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The page headers on every response of the web router, allowing the layout's style and no script;
 * renderPage sets the CSP again for what the page it renders holds.
 */
export function securityHeaders(options: { https: boolean }, layoutStyle: string): Middleware {
  const headers = pageSecurityHeaders({ styles: [layoutStyle] }, options);
  return async function setSecurityHeaders(ctx, next) {
    ctx.set(headers);
    await next();
  };
}
