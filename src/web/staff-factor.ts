import type { Context, Middleware } from 'koa';
import { forbidden } from '../errors/errors.ts';
import { factorStatus, sessionFactorOf } from '../operations/second-factor.ts';
import type { SessionFactor } from '../domain/staff/second-factor.ts';
import { pageContext } from './invoke.ts';
import { safeReturnTo } from './return-to.ts';
import { currentUser, requireUser } from './session.ts';
import type { WebServices } from './web-services.ts';

/** The page that enrols or verifies a staff member's second factor. */
export const SECOND_FACTOR_PAGE = '/account/second-factor';

/**
 * Lets a staff member through only when this session's second factor is verified (within 12
 * hours); otherwise to the factor page (enrol or verify) and back here afterwards. Signs in first
 * when needed; a person without a staff role gets 403.
 */
export function requireStaffFactor(services: WebServices): Middleware {
  return factorGate(services, false);
}

/** As requireStaffFactor, for money actions: the factor must have been verified in the last 10 minutes. */
export function requireRecentFactor(services: WebServices): Middleware {
  return factorGate(services, true);
}

/** The factor this request's web session was verified with (for the audit and the console), or null. */
export async function currentFactor(ctx: Context, services: WebServices): Promise<SessionFactor | null> {
  if (!(await currentUser(ctx, services))) return null;
  return sessionFactorOf(await pageContext(ctx, services));
}

function factorGate(services: WebServices, recent: boolean): Middleware {
  const signedIn = requireUser(services);
  return (ctx, next) =>
    signedIn(ctx, async () => {
      const status = await factorStatus(await pageContext(ctx, services));
      if (!status.staff) throw forbidden('staff_role_required', 'This page is for the site team.');
      if (status.session && (!recent || status.recent)) return next();
      const query = new URLSearchParams({ return_to: returnPath(ctx) });
      if (recent && status.session) query.set('again', '1');
      ctx.status = 303;
      ctx.redirect(`${SECOND_FACTOR_PAGE}?${query}`);
    });
}

/** Back to this page; a form's POST goes back to the page the form was on. */
function returnPath(ctx: Context): string {
  if (ctx.method === 'GET' || ctx.method === 'HEAD') return ctx.originalUrl;
  const referer = URL.parse(ctx.get('referer'));
  const origin = `${ctx.protocol}://${ctx.host}`;
  if (referer && referer.origin === origin) return safeReturnTo(referer.pathname + referer.search, '/staff');
  return consolePageOf(ctx.path);
}

/**
 * The console page a form posts from, by the form's address: our pages send no Referer
 * (Referrer-Policy: no-referrer), so a money action's detour through the factor page comes back to
 * the order, claim or area it was made on (`/staff/orders/N/refund` → `/staff/orders/N`).
 */
export function consolePageOf(path: string): string {
  const item = /^\/staff\/(orders|claims|webhooks|people)\/([^/]+)\//.exec(path);
  if (item) return item[1] === 'people' ? `/staff/people/${item[2]}/factor` : `/staff/${item[1]}/${item[2]}`;
  const area = /^\/staff\/([a-z-]+)(?:\/|$)/.exec(path);
  return area ? `/staff/${area[1]}` : '/staff';
}
