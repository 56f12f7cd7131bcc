import type { Table, Timestamps } from '../../db/table-types.ts';
import type { toPaymentEvent } from './payment-port.ts';
import type { OrderLineRow, OrderRow } from './order-views.ts';
import type { PromoCode } from './promos.ts';

/**
 * The tables of products, orders, payments, refunds and paid placements, as they stand after the last migration, declared for knex's
 * `knex/types/tables` (`db('...')` is then a query over the row type). The rows reuse the
 * domain's types, so they live with their areas; src/db/table-types.ts holds the helpers.
 */
export interface ProductTableRow {
  id: number;
  site_id: number;
  key: string;
  name: string;
  description: string;
  price_cents: number;
  needs_listing: boolean;
  options: Record<string, unknown>;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface PromoCodeTableRow extends PromoCode {
  created_at: Date;
}

export interface PromoRedemptionTableRow {
  id: number;
  promo_code_id: number;
  order_id: number;
  user_id: number;
  state: 'reserved' | 'counted' | 'released';
  created_at: Date;
}

export interface InvoiceSequenceTableRow {
  site_id: number;
  last_number: number;
}

export interface PaymentEventTableRow {
  id: number;
  provider: string;
  provider_event_id: string;
  type: string;
  order_number: string | null;
  /** The provider's event as the payment port reads it. */
  payload: Parameters<typeof toPaymentEvent>[0];
  received_at: Date;
}

/** The test payment adapter's methods and where a simulated payment stands (src/payments/test-provider). */
export type TestPaymentMethod = 'card' | 'wallet' | 'account' | 'crypto';
export type TestPaymentStatus = 'succeeded' | 'declined' | 'requires_action' | 'awaiting_approval' | 'processing' | 'refunded';

export interface TestPaymentTableRow {
  id: string;
  order_number: string;
  method: TestPaymentMethod;
  status: TestPaymentStatus;
  amount_cents: number;
  currency: string;
  created_at: Date;
  refunds_refused: boolean;
}

/** A press of Pay on the pay page (see domain/orders/payment-attempts.ts). */
export interface PaymentAttemptTableRow {
  id: number;
  order_id: number;
  state: 'charging' | 'action' | 'processing' | 'succeeded' | 'declined' | 'released' | 'abandoned';
  provider_payment_id: string | null;
  message: string | null;
  started_at: Date;
  updated_at: Date;
}

export interface RefundTableRow {
  id: number;
  order_id: number;
  order_line_id: number | null;
  amount_cents: number;
  reason: string;
  provider_refund_id: string | null;
  dedupe_key: string;
  created_at: Date;
}

export interface FeaturedPlacementTableRow {
  order_line_id: number;
  site_id: number;
  listing_id: number;
  week_start: string;
}

export interface CategoryPlacementTableRow {
  order_line_id: number;
  site_id: number;
  listing_id: number;
  category: string;
}

export interface BillboardDayTableRow {
  site_id: number;
  day: string;
  order_line_id: number;
  listing_id: number;
}

export interface CapacityHoldTableRow {
  id: number;
  order_id: number;
  order_line_id: number;
  site_id: number;
  kind: string;
  listing_id: number | null;
  week_start: string | null;
  day: string | null;
  created_at: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    products: Table<ProductTableRow, 'id' | 'needs_listing' | 'options' | 'active' | Timestamps>;
    promo_codes: Table<
      PromoCodeTableRow,
      | 'id'
      | 'percent_bp'
      | 'amount_cents'
      | 'starts_at'
      | 'expires_at'
      | 'max_redemptions'
      | 'per_account'
      | 'first_order_only'
      | 'min_net_cents'
      | 'products'
      | 'disabled_at'
      | 'created_at'
    >;
    orders: Table<
      OrderRow,
      | 'id'
      | 'status'
      | 'currency'
      | 'vat_check'
      | 'promo_code_id'
      | 'payment_method'
      | 'payment_id'
      | 'paid_cents'
      | 'paid_currency'
      | 'paid_at'
      | 'invoice_number'
      | 'invoice_label'
      | 'invoice_seller'
      | 'attention_reason'
      | 'fulfilled_at'
      | Timestamps
    >;
    order_lines: Table<
      OrderLineRow,
      'id' | 'listing_id' | 'listing_name' | 'options' | 'unit' | 'quantity' | 'fulfilled_at' | 'refunded_at' | 'ended'
    >;
    promo_redemptions: Table<PromoRedemptionTableRow, 'id' | 'state' | 'created_at'>;
    invoice_sequences: Table<InvoiceSequenceTableRow, 'last_number'>;
    payment_events: Table<PaymentEventTableRow, 'id' | 'order_number' | 'received_at'>;
    test_payments: Table<TestPaymentTableRow, 'created_at' | 'refunds_refused'>;
    payment_attempts: Table<PaymentAttemptTableRow, 'id' | 'provider_payment_id' | 'message'>;
    refunds: Table<RefundTableRow, 'id' | 'order_line_id' | 'provider_refund_id' | 'created_at'>;
    featured_placements: Table<FeaturedPlacementTableRow>;
    category_placements: Table<CategoryPlacementTableRow>;
    billboard_days: Table<BillboardDayTableRow>;
    capacity_holds: Table<CapacityHoldTableRow, 'id' | 'listing_id' | 'week_start' | 'day' | 'created_at'>;
  }
}
