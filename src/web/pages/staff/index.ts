import type { PageRoutes } from '../page-routes.ts';
import { staffAuditPages } from './audit.ts';
import { staffCataloguePages } from './catalogue.ts';
import { staffHomePages } from './home.ts';
import { staffOrderPage } from './order.ts';
import { staffOrderSearchPages } from './orders.ts';

/** The site team's console under /staff, every page behind requireStaff (./access.ts). */
export const staffPages: PageRoutes = (router, services) => {
  for (const pages of [staffHomePages, staffOrderSearchPages, staffOrderPage, staffAuditPages, staffCataloguePages])
    pages(router, services);
};
