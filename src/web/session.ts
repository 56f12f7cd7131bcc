import type { Context, Middleware } from 'koa';
import { deviceLabel } from '../auth/device-label.ts';
import { createSession, endSession, findSession, type ActiveSession, type SessionPolicy, type SessionUser } from '../auth/sessions.ts';
import { clearCookie, readToken, setCookie } from './cookies.ts';
import { secureCookies, type WebServices } from './web-services.ts';

export const SESSION_COOKIE = 'ld_session';

declare module 'koa' {
  interface DefaultState {
    /** Memoized session lookup of this request (undefined until looked up). */
    webSession?: ActiveSession | null;
    /** Set by a page that changed nothing of the person's (a kept page filled for them). */
    onlyRead?: boolean;
  }
}

/** The signed-in session of this request, or null. Looked up once per request. */
export async function currentSession(ctx: Context, services: WebServices): Promise<ActiveSession | null> {
  if (ctx.state.webSession !== undefined) return ctx.state.webSession;
  const session = await findSession(services.db, readToken(ctx, SESSION_COOKIE), sessionPolicy(services), services.caches.sessions);
  if (session?.renewed) {
    // The idle expiry moved forward; move the cookie's along with it.
    setCookie(ctx, SESSION_COOKIE, readToken(ctx, SESSION_COOKIE)!, sessionCookieOptions(services, session.expiresAt));
  }
  ctx.state.webSession = session;
  return session;
}

/**
 * What this process keeps of the signed-in person (caches.people, caches.sessions) is forgotten
 * after each of their requests but the kept pages' (front page, /launches, listings), which
 * only read it: whatever another page or form of theirs changed shows on their next page, even
 * before the change notice arrives.
 */
export function forgetAfterTheirRequests(services: WebServices): Middleware {
  return async function forgetTheirState(ctx, next) {
    try {
      await next();
    } finally {
      const session = ctx.state.webSession;
      if (session && !ctx.state.onlyRead) {
        services.caches.people.forget(session.user.id);
        services.caches.sessions.forget(session.user.id);
      }
    }
  };
}

/** The signed-in user of this request, or null. For any web route (also the OAuth consent page). */
export async function currentUser(ctx: Context, services: WebServices): Promise<SessionUser | null> {
  return (await currentSession(ctx, services))?.user ?? null;
}

/**
 * Lets the request through only when signed in; otherwise a GET goes to the sign-in page and
 * comes back here afterwards (`return_to`), and any other method goes to the sign-in page.
 */
export function requireUser(services: WebServices): Middleware {
  return async function requireSignedIn(ctx, next) {
    if (await currentUser(ctx, services)) return next();
    ctx.status = 303;
    const back = ctx.method === 'GET' || ctx.method === 'HEAD' ? `?return_to=${encodeURIComponent(ctx.originalUrl)}` : '';
    ctx.redirect(`/signin${back}`);
  };
}

/** Signs a user in with a brand-new session id (rotation: the old session of this browser ends). */
export async function startSession(ctx: Context, services: WebServices, userId: number): Promise<void> {
  const previous = await currentSession(ctx, services);
  if (previous) await endSession(services.db, previous.idHash);
  const { id } = await createSession(services.db, userId, sessionPolicy(services), deviceLabel(ctx.get('user-agent')));
  const session = await findSession(services.db, id, sessionPolicy(services));
  setCookie(ctx, SESSION_COOKIE, id, sessionCookieOptions(services, session!.expiresAt));
  ctx.state.webSession = session;
}

/** Sessions end by the service's clock; staff members' sooner (config.staffSessions). */
const sessionPolicy = (services: WebServices): SessionPolicy => ({ now: services.clock.now(), staff: services.config.staffSessions });

/** Ends this browser's session, if any. */
export async function endCurrentSession(ctx: Context, services: WebServices): Promise<void> {
  const session = await currentSession(ctx, services);
  if (session) {
    await endSession(services.db, session.idHash);
    services.caches.sessions.forget(session.user.id);
  }
  clearCookie(ctx, SESSION_COOKIE, { secure: secureCookies(services) });
  ctx.state.webSession = null;
}

/** The cookie lives as long as the session: the idle lifetime, cut short by the absolute one. */
const sessionCookieOptions = (services: WebServices, expiresAt: Date) => ({
  maxAgeSeconds: Math.max(0, Math.round((expiresAt.getTime() - services.clock.now().getTime()) / 1000)),
  secure: secureCookies(services),
});
