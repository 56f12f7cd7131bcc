/**
 * The ports the domain needs from outside it; main.ts builds the implementations once
 * (src/temporal/client.ts, src/payments/) and hands them down. The search engine's port is
 * beside its area (listings/search-port.ts), the payment provider's beside orders
 * (orders/payment-port.ts). None of them hands out an SDK: the domain knows no Temporal or Stripe types.
 */
import type { ClaimWorkflowInput, VerifyNowResult } from './claims/claim-flow.ts';
import type { OrderWorkflowInput, PaymentConfirmed } from './orders/order-flow.ts';
import type { WebhookDeliveryInput } from './webhooks/events.ts';

export type { PaymentProvider, PaymentEvent, ProviderName } from './orders/payment-port.ts';
export type { SearchEngine } from './listings/search-port.ts';
export type { MediaFile, MediaStore } from './media/media-port.ts';

/** A workflow run's status as Temporal names it, in lower case; `missing` when the id has no run. */
export type WorkflowStatus =
  | 'running'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'terminated'
  | 'continued_as_new'
  | 'timed_out'
  | 'paused'
  | 'unknown'
  | 'missing';

/**
 * Where a write's workflow starts go after the write recorded them (recordWorkflowStart, in its
 * transaction): the process's dispatcher (src/temporal/workflow-dispatcher.ts).
 */
export interface WorkflowStartQueue {
  /**
   * How long a start recorded now stays leased to this process, which makes it right after the
   * commit (startNow); null while Temporal does not answer (the dispatchers retry it then).
   */
  inlineLeaseMs(): number | null;
  /** Makes the given recorded starts now, after their transaction committed; a failure leaves them to the retries. */
  startNow(ids: number[]): Promise<void>;
}

/** The workflow starts and messages the domain and the operations need; one Temporal connection per process. */
export interface WorkflowStarter {
  /** Starts `draft:{id}`, searchable by DraftId, DraftStatus and SiteKey. */
  startDraft(draftId: number, about: { url: string; siteKey: string }): Promise<void>;
  /**
   * Runs `import:{site}:{domain}` (joining a running import of the same company) and waits for its
   * listing; a refusal (already listed, crawl failed) is thrown as an AppError with its code.
   */
  importListing(input: { siteId: number; siteKey: string; url: string }): Promise<{ id: number; slug: string }>;
  /** Starts telling the followers of a listing update, `batchSize` followers per activity call. */
  startListingUpdate(updateId: number, batchSize: number, listingId: number): Promise<void>;
  /** Starts `newsletter:{site}:{week}`, the send of a site's issue about a closed week. */
  startNewsletter(input: { siteKey: string; week: string; batchSize: number; pauseMs: number }): Promise<void>;
  /** Starts `notification-mail:{user}:{due}`, which mails one person's comment notifications when due. */
  startNotificationMail(input: { userId: number; dueAt: number }): Promise<void>;
  /** Starts `account-export:{user}:{id}`, the preparation of a person's data export. */
  startAccountExport(input: { userId: number; exportId: number }): Promise<void>;
  /** Wakes `listing:{id}` to look at its launch again (recheck signal), starting it when it is not running. */
  recheckLaunch(listingId: number, siteKey: string): Promise<void>;
  /** Re-aims `listing:{id}` after a paid launch was booked (paidLaunch signal), starting it when need be. */
  paidLaunch(listingId: number, siteKey: string, week: string | null): Promise<void>;
  /** Starts (or finds) a claim's workflow `claim:{id}`, searchable by ClaimId and ListingId. */
  startClaim(input: ClaimWorkflowInput & { listingId: number; slug: string }): Promise<void>;
  /** Update `verifyNow` on a claim's running workflow; null when no run of it is running (closed or missing). */
  verifyClaimNow(claimId: number): Promise<VerifyNowResult | null>;
  /** Signal `emailLinkOpened`: the claim was verified by its emailed link. */
  signalClaimLinkOpened(claimId: number): Promise<void>;
  /** Signal `claimClosed`: the site team decided the claim; its workflow settles and ends. */
  signalClaimClosed(claimId: number): Promise<void>;
  /** Starts `order:{number}`: waits for the payment until the link expires, then fulfils. */
  startOrder(input: OrderWorkflowInput, listingIds: number[]): Promise<void>;
  /** Delivers a stored payment event to `order:{number}`, starting the workflow when it is closed or missing. */
  signalPayment(input: OrderWorkflowInput, listingIds: number[], signal: PaymentConfirmed): Promise<void>;
  /**
   * Starts `webhook-delivery:{id}` for one round of a delivery, searchable by ListingId when the
   * event is about a listing; `replace` ends a run of an older round still retrying (redeliver).
   */
  startWebhookDelivery(input: WebhookDeliveryInput, about: { listingId: number | null; replace: boolean }): Promise<void>;
  /** Update `retry` on `order:{number}` (it tries the unfulfilled lines again); false when no run of it is running. */
  retryOrder(number: string): Promise<boolean>;
  /** Where the latest run of a workflow stands (flows:stuck); `missing` when there is none. */
  workflowStatus(workflowId: string): Promise<WorkflowStatus>;
  /** Frontend reachable (used by /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
