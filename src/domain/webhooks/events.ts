/** The events an owner can subscribe an endpoint to, about their own listings and orders. */
export const WEBHOOK_EVENT_TYPES = [
  'listing.scheduled',
  'listing.live',
  'badge.missing',
  'vote.milestone',
  'weekly.result',
  'order.paid',
  'order.fulfilled',
  'order.refunded',
  'claim.verified',
  'update.published',
  'comment.created',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Vote counts that send `vote.milestone` once each. */
export const VOTE_MILESTONES = [10, 50, 100, 500] as const;

/** What each event means, in words (the page and the docs). */
export const WEBHOOK_EVENT_WORDS: Record<WebhookEventType, string> = {
  'listing.scheduled': 'A listing got its launch week',
  'listing.live': 'A listing went live',
  'badge.missing': 'Our badge was not found on your site',
  'vote.milestone': 'A listing reached 10, 50, 100 or 500 votes',
  'weekly.result': 'The week closed with your listing’s place',
  'order.paid': 'An order was paid',
  'order.fulfilled': 'Everything in an order was delivered',
  'order.refunded': 'An order or part of it was refunded',
  'claim.verified': 'Your claim of a listing was verified',
  'update.published': 'You posted an update on a listing',
  'comment.created': 'A comment or reply was posted on your listing (a held one once the site team approves it), yours included',
};

/** Standard Webhooks' `webhook-id`: one per event, the same on every retry and redelivery. */
export const webhookMessageId = (eventId: number) => `msg_${eventId}`;

/** Input of `webhook-delivery:{id}`: the delivery, its round (redeliveries) and the retry schedule. */
export interface WebhookDeliveryInput {
  deliveryId: number;
  round: number;
  /** First wait after a failure; each next one is 3 times longer, up to maxMs. */
  firstRetryMs: number;
  maxRetryMs: number;
  /** How long the delivery is retried from its first attempt. */
  windowMs: number;
}

/** What one attempt came to. `retry`: failed, try again; `failed`: window over; `stopped`: endpoint gone, disabled, or a newer round. */
export type AttemptOutcome = 'succeeded' | 'retry' | 'failed' | 'stopped';
