import type { PageRoutes } from '../page-routes.ts';
import { staffAuditPages } from './audit.ts';
import { staffCataloguePages } from './catalogue.ts';
import { staffClaimPage } from './claim.ts';
import { staffClaimListPages } from './claims.ts';
import { staffFlowPages } from './flows.ts';
import { staffHomePages } from './home.ts';
import { staffModerationActions } from './moderation-actions.ts';
import { staffModerationPages } from './moderation.ts';
import { staffOrderPage } from './order.ts';
import { staffOrderSearchPages } from './orders.ts';
import { staffPersonFactorPages } from './person-factor.ts';
import { staffRolePages } from './roles.ts';
import { staffWebhookPages } from './webhooks.ts';

/** The console's areas, in the order of its home page. */
const AREAS: PageRoutes[] = [
  staffHomePages,
  staffOrderSearchPages,
  staffOrderPage,
  staffClaimListPages,
  staffClaimPage,
  staffFlowPages,
  staffWebhookPages,
  staffModerationPages,
  staffModerationActions,
  staffCataloguePages,
  staffRolePages,
  staffPersonFactorPages,
  staffAuditPages,
];

/** The site team's console under /staff, every page behind requireStaff (./access.ts). */
export const staffPages: PageRoutes = (router, services) => {
  for (const pages of AREAS) pages(router, services);
};
