import type { Db } from '../../db/knex.ts';
import { getClaim, toClaimView } from '../claims/claims.ts';
import { launchDetails } from '../launches/owner-launch.ts';
import { toOwnerListing, type ListingRow } from '../listings/listings.ts';
import { linesOf, toOrderView, type OrderRow } from '../orders/order-views.ts';
import { toUpdateView, type ListingUpdateRow } from '../updates/updates.ts';
import { webhookDeliveryWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import type { WebhookEventType } from './events.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';

export interface WebhookEvent {
  type: WebhookEventType;
  /** The account whose endpoints hear it (the listing's owner, the buyer, the claimant). */
  userId: number;
  listingId?: number | null;
  /** One event per moment, however often the step that emits it runs (e.g. `order.paid:LD-…`). */
  dedupeKey: string;
  data: Record<string, unknown>;
}

/**
 * Records an event and one delivery per enabled endpoint of the account subscribed to its type,
 * in the caller's transaction (so the event exists exactly when the moment it reports does), with
 * the start of each delivery's workflow `webhook-delivery:{id}`, which the dispatchers make once
 * it is committed (src/temporal/workflow-dispatcher.ts); nothing is written when nobody listens.
 * Returns the new deliveries' ids (none when the event was recorded before).
 */
export async function emitEvent(db: Db, event: WebhookEvent): Promise<number[]> {
  const endpointIds = await db('webhook_endpoints')
    .where({ user_id: event.userId, enabled: true })
    .whereRaw('? = ANY(events)', [event.type])
    .pluck('id');
  if (endpointIds.length === 0) return [];
  const payload = { type: event.type, created_at: new Date().toISOString(), data: event.data };
  const [created] = await db('webhook_events')
    .insert({
      user_id: event.userId,
      type: event.type,
      listing_id: event.listingId ?? null,
      payload: JSON.stringify(payload),
      dedupe_key: event.dedupeKey,
    })
    .onConflict('dedupe_key')
    .ignore()
    .returning('id');
  if (!created) return [];
  const deliveries = await db('webhook_deliveries')
    .insert(endpointIds.map((endpointId: number) => ({ event_id: created.id, endpoint_id: endpointId })))
    .returning('id');
  for (const { id } of deliveries) {
    const input = { deliveryId: id, round: 0, listingId: event.listingId ?? null, replace: false };
    await recordWorkflowStart(db, { kind: 'webhook-delivery', workflowId: webhookDeliveryWorkflowId(id), input });
  }
  return deliveries.map((d) => d.id);
}

/** The listing as list_my_listings shows it to its owner. */
export async function ownerListingData(db: Db, row: ListingRow, baseUrl: string) {
  const site = await db('sites').where({ id: row.site_id }).first('key');
  const details = await launchDetails(db, [row], baseUrl);
  return { ...toOwnerListing(row, site!.key, baseUrl), ...details.get(row.id)! };
}

/** An event about a listing, heard by its owner's endpoints (none for a listing without owner). */
export async function emitListingEvent(
  db: Db,
  baseUrl: string,
  type: WebhookEventType,
  listingId: number,
  dedupeKey: string,
  extra: Record<string, unknown> = {},
): Promise<number[]> {
  const row: ListingRow | undefined = await db('listings').where({ id: listingId }).first();
  if (!row || row.owner_id === null) return [];
  if (!(await hasListeners(db, row.owner_id, type))) return [];
  return emitEvent(db, {
    type,
    userId: row.owner_id,
    listingId,
    dedupeKey,
    data: { listing: await ownerListingData(db, row, baseUrl), ...extra },
  });
}

/** An event about an order (order.paid, order.fulfilled, order.refunded), with the order as get_order returns it. */
export async function emitOrderEvent(
  db: Db,
  baseUrl: string,
  type: WebhookEventType,
  orderId: number,
  dedupeKey: string,
  extra: Record<string, unknown> = {},
): Promise<number[]> {
  const order: OrderRow | undefined = await db('orders').where({ id: orderId }).first();
  if (!order || !(await hasListeners(db, order.user_id, type))) return [];
  const lines = (await linesOf(db, [order.id])).get(order.id)!;
  const listingId = lines.find((l) => l.listing_id !== null)?.listing_id ?? null;
  return emitEvent(db, {
    type,
    userId: order.user_id,
    listingId,
    dedupeKey,
    data: { order: toOrderView({ baseUrl }, order, lines), ...extra },
  });
}

/** claim.verified, with the claim as list_my_claims returns it. */
export async function emitClaimVerified(db: Db, claimId: number): Promise<number[]> {
  const claim = await getClaim(db, claimId);
  if (!claim || claim.status !== 'verified' || !(await hasListeners(db, claim.user_id, 'claim.verified'))) return [];
  return emitEvent(db, {
    type: 'claim.verified',
    userId: claim.user_id,
    listingId: claim.listing_id,
    dedupeKey: `claim.verified:${claimId}`,
    data: { claim: toClaimView(claim) },
  });
}

/** update.published, with the update as post_listing_update returned it. */
export async function emitUpdatePublished(db: Db, baseUrl: string, updateId: number): Promise<number[]> {
  const update: ListingUpdateRow | undefined = await db('listing_updates')
    .where({ id: updateId })
    .first('id', 'listing_id', 'site_id', 'author_id', 'title', 'body', 'published_at');
  if (!update) return [];
  return emitListingEvent(db, baseUrl, 'update.published', update.listing_id, `update.published:${updateId}`, {
    update: toUpdateView(update),
  });
}

async function hasListeners(db: Db, userId: number, type: WebhookEventType): Promise<boolean> {
  const row = await db('webhook_endpoints').where({ user_id: userId, enabled: true }).whereRaw('? = ANY(events)', [type]).first('id');
  return row !== undefined;
}
