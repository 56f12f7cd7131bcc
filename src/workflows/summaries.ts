// The static summaries operators read in the Temporal UI's workflow list, one per workflow type.
// Pure functions: workflows (child starts) use them too.

/** The UI shows a line; a long URL is cut there anyway. */
const MAX_URL = 120;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** `draft:{id}`: "Draft 12 from https://acme.example/ on main". */
export const draftSummary = (draftId: number, url: string, siteKey: string) => `Draft ${draftId} from ${cut(url, MAX_URL)} on ${siteKey}`;

/** `import:{site}:{domain}`: "Import of https://acme.example/ to main". */
export const importSummary = (url: string, siteKey: string) => `Import of ${cut(url, MAX_URL)} to ${siteKey}`;

/** `listing-update:{id}`: "Update 7 of listing 12 to its followers". */
export const listingUpdateSummary = (updateId: number, listingId: number) => `Update ${updateId} of listing ${listingId} to its followers`;

/** `notification-mail:{user}:{due}`: "Comment mail of user 7". */
export const notificationMailSummary = (userId: number) => `Comment mail of user ${userId}`;

/** `listing:{id}`: "Launch of listing 12 on main". */
export const launchSummary = (listingId: number, siteKey: string) => `Launch of listing ${listingId} on ${siteKey}`;

/** `claim:{id}`: "Claim 5 of acme-analytics by dns". */
export const claimSummary = (claimId: number, slug: string, method: string) => `Claim ${claimId} of ${slug} by ${method}`;

/** `order:{number}`: "Order LD-2026-000123 for listing 12". */
export const orderSummary = (number: string, listingIds: number[]) =>
  `Order ${number}${listingIds.length ? ` for listing ${listingIds.join(', ')}` : ''}`;

/** `weekly-close:{site}:{week}`: "Weekly close of main, 2026-W47". */
export const siteWeeklyCloseSummary = (siteKey: string, week: string) => `Weekly close of ${siteKey}, ${week}`;

/** `vote-scan:{site}:{week}`: "Vote scan of main, 2026-W48". */
export const siteVoteScanSummary = (siteKey: string, week: string) => `Vote scan of ${siteKey}, ${week}`;
/** `webhook-delivery:{id}`: "Webhook delivery 9", "Webhook delivery 9, redelivery 1". */
export const webhookDeliverySummary = (deliveryId: number, round: number) =>
  `Webhook delivery ${deliveryId}${round > 0 ? `, redelivery ${round}` : ''}`;

/** `newsletter:{site}:{week}`: "Newsletter of main about 2026-W47". */
export const newsletterSummary = (siteKey: string, week: string) => `Newsletter of ${siteKey} about ${week}`;
