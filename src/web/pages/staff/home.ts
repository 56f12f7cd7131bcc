import type { StaffRole } from '../../../domain/staff/roles.ts';
import { html } from '../../html.ts';
import { renderPage } from '../../render.ts';
import type { PageRoutes } from '../page-routes.ts';
import { requireStaff, staffRoles } from './access.ts';

/** What each role may do here, in words, with the page it is done on. */
const ORDERS = { text: 'Find orders, refund them and replay stuck ones', href: '/staff/orders' };
const CLAIMS = { text: 'Check ownership claims and approve or reject them', href: '/staff/claims' };
const FLOWS = { text: 'See background work that is stuck and retry it', href: '/staff/flows' };
const WEBHOOKS = { text: 'See owners’ webhook addresses that fail', href: '/staff/webhooks' };
const MODERATION = { text: 'Moderate listings, edits and votes', href: '/staff/moderation' };
const CAN: Record<StaffRole, { text: string; href: string }[]> = {
  admin: [
    ORDERS,
    CLAIMS,
    FLOWS,
    WEBHOOKS,
    MODERATION,
    { text: 'Set products, prices, promo codes, paid slots and invoice details', href: '/staff/catalogue' },
    { text: 'Give and take back staff roles', href: '/staff/roles' },
    { text: 'Read and export the audit log of staff actions', href: '/staff/audit' },
  ],
  support: [ORDERS, CLAIMS, FLOWS, WEBHOOKS],
  moderator: [MODERATION],
};

const ROLE_NAME: Record<StaffRole, string> = { admin: 'Admin', support: 'Support', moderator: 'Moderator' };

/** The console's home: the person's roles on this site and what each lets them do. */
export const staffHomePages: PageRoutes = (router, services) => {
  router.get('/staff', requireStaff(services), async function staffHome(ctx) {
    const roles = staffRoles(ctx.state);
    await renderPage(ctx, services, {
      title: 'Site team',
      main: html`<p>Your roles on this site: <strong data-staff-roles>${roles.map((r) => ROLE_NAME[r]).join(', ')}</strong>.</p>
${roles.map(
  (r) => html`<section aria-labelledby="can-${r}"><h2 id="can-${r}">As ${ROLE_NAME[r].toLowerCase()}, you can</h2>
<ul>${CAN[r].map((c) => html`<li><a href="${c.href}">${c.text}</a></li>`)}</ul></section>`,
)}
<p class="muted">Every action you take here is recorded in the audit log with your name.</p>`,
    });
  });
};
