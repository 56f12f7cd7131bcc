import type { Context } from 'koa';
import { clearCookie, setCookie } from './cookies.ts';
import type { FieldMessages } from './forms.ts';
import { secureCookies, type WebServices } from './web-services.ts';

const FLASH_COOKIE = 'ld_flash';

/** What a refused form hands to the page it redirects to: which form, its messages. */
export interface Flash {
  form: string;
  errors: FieldMessages;
}

/**
 * Redirect-after-POST for a refused form too: the messages travel in a short-lived cookie that the
 * next page view reads once, so the browser never stays on a POST URL (a reload re-sends nothing).
 */
export function redirectWithFlash(ctx: Context, services: WebServices, location: string, flash: Flash): void {
  const value = Buffer.from(JSON.stringify(flash)).toString('base64url');
  setCookie(ctx, FLASH_COOKIE, value, { maxAgeSeconds: 60, secure: secureCookies(services) });
  ctx.status = 303;
  ctx.redirect(location);
}

/** Whether this view has a flash to take (a page showing it is that browser's own). */
export const hasFlash = (ctx: Context): boolean => ctx.cookies.get(FLASH_COOKIE) !== undefined;

/** The flash of this view, if any (cleared as it is read); anything malformed is ignored. */
export function takeFlash(ctx: Context, services: WebServices): Flash | undefined {
  const value = ctx.cookies.get(FLASH_COOKIE);
  if (value === undefined) return undefined;
  clearCookie(ctx, FLASH_COOKIE, { secure: secureCookies(services) });
  if (!/^[A-Za-z0-9_-]{1,4000}$/.test(value)) return undefined;
  try {
    const flash = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Flash;
    const messages = Object.entries(flash?.errors ?? {});
    const ok =
      typeof flash.form === 'string' && messages.length > 0 && messages.every(([k, v]) => typeof k === 'string' && typeof v === 'string');
    return ok ? { form: flash.form, errors: Object.fromEntries(messages) } : undefined;
  } catch {
    return undefined;
  }
}
