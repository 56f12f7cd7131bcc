import type { Table, Timestamps } from '../../db/table-types.ts';
import type { WebhookEventType } from './events.ts';

/**
 * The tables of owners' webhooks: endpoints, events, deliveries and tries, as they stand after the last migration, declared for knex's
 * `knex/types/tables` (`db('...')` is then a query over the row type). The rows reuse the
 * domain's types, so they live with their areas; src/db/table-types.ts holds the helpers.
 */
export interface WebhookEndpointTableRow {
  id: number;
  user_id: number;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  enabled: boolean;
  secret_box: Buffer;
  failing_since: Date | null;
  disabled_at: Date | null;
  disabled_reason: 'by_owner' | 'failing' | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookEventTableRow {
  id: number;
  user_id: number;
  type: WebhookEventType;
  listing_id: number | null;
  payload: { type: WebhookEventType; created_at: string; data: Record<string, unknown> };
  dedupe_key: string;
  created_at: Date;
}

export interface WebhookDeliveryTableRow {
  id: number;
  event_id: number;
  endpoint_id: number;
  status: 'pending' | 'succeeded' | 'failed';
  round: number;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  first_attempt_at: Date | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  succeeded_at: Date | null;
  workflow_started_at: Date | null;
  created_at: Date;
}

export interface WebhookAttemptTableRow {
  id: number;
  delivery_id: number;
  round: number;
  ok: boolean;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    webhook_endpoints: Table<
      WebhookEndpointTableRow,
      'id' | 'description' | 'enabled' | 'failing_since' | 'disabled_at' | 'disabled_reason' | Timestamps
    >;
    webhook_events: Table<WebhookEventTableRow, 'id' | 'listing_id' | 'created_at'>;
    webhook_deliveries: Table<
      WebhookDeliveryTableRow,
      | 'id'
      | 'status'
      | 'round'
      | 'attempts'
      | 'last_status_code'
      | 'last_error'
      | 'first_attempt_at'
      | 'last_attempt_at'
      | 'next_attempt_at'
      | 'succeeded_at'
      | 'workflow_started_at'
      | 'created_at'
    >;
    webhook_attempts: Table<WebhookAttemptTableRow, 'id' | 'status_code' | 'error' | 'attempted_at'>;
  }
}
