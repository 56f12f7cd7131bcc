import type { PageRoutes } from '../page-routes.ts';
import { staffAuditPages } from './audit.ts';
import { staffClaimPage } from './claim.ts';
import { staffClaimListPages } from './claims.ts';
import { staffHomePages } from './home.ts';
import { staffOrderPage } from './order.ts';
import { staffOrderSearchPages } from './orders.ts';
import { staffRolePages } from './roles.ts';
import { staffWebhookPages } from './webhooks.ts';

/** The site team's console under /staff, every page behind requireStaff (./access.ts). */
export const staffPages: PageRoutes = (router, services) => {
  for (const pages of [
    staffHomePages,
    staffOrderSearchPages,
    staffOrderPage,
    staffAuditPages,
    staffClaimListPages,
    staffClaimPage,
    staffWebhookPages,
    staffRolePages,
  ])
    pages(router, services);
};
