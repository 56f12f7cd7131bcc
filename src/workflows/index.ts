// Every workflow the worker runs; this file is the worker's workflow bundle entry.
export { draftWorkflow } from './draft.ts';
export { listingImportWorkflow } from './listing-import.ts';
export { listingUpdateWorkflow } from './listing-update.ts';
export { notificationMailWorkflow } from './notification-mail.ts';
export { listingLaunchWorkflow } from './listing-launch.ts';
export { siteWeeklyCloseWorkflow, weeklyCloseWorkflow } from './weekly-close.ts';
export { claimWorkflow } from './claim.ts';
export { orderWorkflow } from './order.ts';
export { maintenanceWorkflow } from './maintenance.ts';
export { siteVoteScanWorkflow, voteScanWorkflow } from './vote-scan.ts';
export { webhookDeliveryWorkflow } from './webhook-delivery.ts';
export { newsletterWorkflow } from './newsletter.ts';
export { accountExportWorkflow } from './account-export.ts';
