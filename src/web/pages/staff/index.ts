import type { PageRoutes } from '../page-routes.ts';
import { staffAuditPages } from './audit.ts';
import { staffHomePages } from './home.ts';
import { staffOrderPage } from './order.ts';
import { staffOrderSearchPages } from './orders.ts';
import { staffPersonFactorPages } from './person-factor.ts';

/** The site team's console under /staff, every page behind requireStaff (./access.ts). */
export const staffPages: PageRoutes = (router, services) => {
  for (const pages of [staffHomePages, staffOrderSearchPages, staffOrderPage, staffAuditPages, staffPersonFactorPages])
    pages(router, services);
};
