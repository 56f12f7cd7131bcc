/**
 * Workflow ids, deterministic so that a repeated start finds the running flow
 * (`workflowIdConflictPolicy: 'USE_EXISTING'`). Plain strings: the domain shows them to callers
 * and operators, the client adapter starts and messages the flows by them, workflows start
 * children by them.
 */

/** A draft's crawl and drafting. */
export const draftWorkflowId = (draftId: number) => `draft:${draftId}`;

/** A listing's launch flow (free queue or paid). */
export const listingLaunchWorkflowId = (listingId: number) => `listing:${listingId}`;

/**
 * An admin import of a company's website to a site; `companyKey` is the company's registrable
 * domain (src/domain/company.ts), so a second import of the same company joins the running one.
 */
export const listingImportWorkflowId = (siteKey: string, companyKey: string) => `import:${siteKey}:${companyKey}`;

/** The fan-out of one listing update to its followers. */
export const listingUpdateWorkflowId = (updateId: number) => `listing-update:${updateId}`;

/** A claim's verification. */
export const claimWorkflowId = (claimId: number) => `claim:${claimId}`;

/** An order from checkout through payment to fulfilment. */
export const orderWorkflowId = (number: string) => `order:${number}`;

/** The delivery of one webhook event to one endpoint. */
export const webhookDeliveryWorkflowId = (deliveryId: number) => `webhook-delivery:${deliveryId}`;

/** One site's close of one ISO week (`2026-W48`). */
export const weeklyCloseWorkflowId = (siteKey: string, week: string) => `weekly-close:${siteKey}:${week}`;

/** One scan of one site's launch week for vote rings. */
export const voteScanWorkflowId = (siteKey: string, week: string) => `vote-scan:${siteKey}:${week}`;

/** The weekly newsletter of one site about one closed ISO week (`2026-W48`). */
export const newsletterWorkflowId = (siteKey: string, week: string) => `newsletter:${siteKey}:${week}`;

/** One person's batch of comment notifications to mail, due at `dueMs` (epoch ms): one run per batch. */
export const notificationMailWorkflowId = (userId: number, dueMs: number) => `notification-mail:${userId}:${dueMs}`;
/** The preparation of one data export a person asked for (their archive and its mailed link). */
export const accountExportWorkflowId = (userId: number, exportId: number) => `account-export:${userId}:${exportId}`;
