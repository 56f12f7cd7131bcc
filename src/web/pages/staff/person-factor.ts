import type { Context } from 'koa';
import { notFound } from '../../../errors/errors.ts';
import { staffFactorSummary, staffResetSecondFactorOp } from '../../../operations/staff-factors.ts';
import { field, postForm } from '../../components.ts';
import { csrfToken } from '../../csrf.ts';
import { formBody, formString } from '../../forms.ts';
import { html } from '../../html.ts';
import { invokeForPage, pageContext } from '../../invoke.ts';
import { renderPage } from '../../render.ts';
import { requireRecentFactor } from '../../staff-factor.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff } from './access.ts';

export const PEOPLE_PATH = '/staff/people';

/**
 * A staff member's second factor as an admin sees it (counts only) and its reset, for a lost phone
 * or key: the person then sets up a factor again before the console opens. Like money actions,
 * the reset wants a factor verified in the last 10 minutes.
 */
export const staffPersonFactorPages: PageRoutes = (router, services) => {
  router.get(`${PEOPLE_PATH}/{id}/factor`, requireStaff(services, ['admin']), async function staffPersonFactor(ctx) {
    const person = await staffFactorSummary(await pageContext(ctx, services), personId(ctx));
    const c = person.counts;
    const token = await csrfToken(ctx, services);
    await renderPage(ctx, services, {
      title: `Second factor of ${person.email}`,
      notice:
        ctx.query.reset === '1' ? `The second factor of ${person.email} is reset: they set up a new one at their next visit.` : undefined,
      main: html`<dl class="facts">
<dt>Authenticator app</dt><dd>${c.totp ? 'set up' : 'none'}</dd>
<dt>Recovery codes left</dt><dd>${c.recovery_codes}</dd>
<dt>Passkeys</dt><dd>${c.passkeys}</dd>
<dt>Verified sessions now</dt><dd>${c.verified_sessions}</dd>
</dl>
<h2>Reset</h2>
<p>Resetting removes their authenticator app, recovery codes and passkeys. The console then asks them to set up a
factor again. Do it only when you are sure who asked: call them, or see them.</p>
${postForm(
  `${PEOPLE_PATH}/${person.id}/factor/reset`,
  token,
  html`${field({ name: 'reason', label: 'Reason', hint: 'For the audit log, such as "lost phone, confirmed by a call".', maxlength: 500 })}
<button type="submit">Reset their second factor</button>`,
)}`,
    });
  });

  router.post(
    `${PEOPLE_PATH}/{id}/factor/reset`,
    requireStaff(services, ['admin']),
    requireRecentFactor(services),
    async function resetPersonFactor(ctx) {
      const id = personId(ctx);
      const reason = formString(formBody(ctx), 'reason').trim().slice(0, 500) || undefined;
      await invokeForPage(ctx, services, staffResetSecondFactorOp, { user_id: id, reason });
      ctx.status = 303;
      ctx.redirect(`${PEOPLE_PATH}/${id}/factor?reset=1`);
    },
  );
};

function personId(ctx: Context): number {
  if (!/^\d{1,9}$/.test(ctx.params.id ?? '')) throw notFound('This member of the site team');
  return Number(ctx.params.id);
}
