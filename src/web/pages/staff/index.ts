import type { PageRoutes } from '../page-routes.ts';
import { staffAuditPages } from './audit.ts';
import { staffHomePages } from './home.ts';
import { staffModerationActions } from './moderation-actions.ts';
import { staffModerationPages } from './moderation.ts';
import { staffOrderPage } from './order.ts';
import { staffOrderSearchPages } from './orders.ts';

/** The site team's console under /staff, every page behind requireStaff (./access.ts). */
export const staffPages: PageRoutes = (router, services) => {
  for (const pages of [
    staffHomePages,
    staffOrderSearchPages,
    staffOrderPage,
    staffAuditPages,
    staffModerationPages,
    staffModerationActions,
  ])
    pages(router, services);
};
