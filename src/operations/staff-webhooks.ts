import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks/events.ts';
import { endpointHealth, unhealthyEndpoints } from '../domain/webhooks/health.ts';
import { defineOperation } from './operation.ts';
import { Id } from './schemas.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

const Failure = z.object({
  status_code: z.int().nullable().describe('The HTTP status it answered; null when it gave no answer'),
  error: z.string().nullable().describe('What went wrong, in our words'),
  at: z.string(),
});

const EndpointHealth = z.object({
  id: Id,
  owner_email: z.string(),
  host: z.string().describe('The host (and port) of the address; the rest is not shown: it often holds a token'),
  path_length: z.int().describe('How many characters of path and query follow the host'),
  masked_url: z.string().describe('e.g. https://hooks.example.com/… (42 characters)'),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  enabled: z.boolean(),
  failing_since: z.string().nullable().describe('First failed try since its last success'),
  disabled_at: z.string().nullable(),
  disabled_reason: z.enum(['by_owner', 'failing']).nullable().describe('failing: we turned it off after 3 days of failures'),
  created_at: z.string(),
  failures_in_a_row: z.int().describe('Failed tries since its last successful one'),
  last_success_at: z.string().nullable(),
  last_errors: z.array(Failure).describe('The latest failed tries, newest first'),
});

export const staffListWebhookHealthOp = defineOperation({
  name: 'staff_list_webhook_health',
  summary: 'Site team: owners’ webhook endpoints that fail or are turned off',
  description:
    'The endpoints of this site’s owners (an owner is on the site by a listing or an order there) that are failing or turned off, ' +
    'those failing longest first: the owner’s email, the host of the address (the rest is masked: it often carries a token), ' +
    'failures in a row, when it was turned off and why, and the last three errors. Never the signing secret or any payload. ' +
    'For support and admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/webhooks',
  scope: 'staff:webhooks',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ limit: z.int().min(1).max(200).default(100) }),
  output: z.object({ items: z.array(EndpointHealth) }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'support']);
    const items = await unhealthyEndpoints(ctx.db, ctx.site.id, input.limit);
    await audit(ctx, actor, { operation: 'staff_list_webhook_health', input, after: { found: items.length } });
    return { items };
  },
});

const StaffDelivery = z.object({
  id: Id,
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.int(),
  last_status_code: z.int().nullable(),
  last_error: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  workflow_id: z.string(),
});

export const staffGetWebhookEndpointOp = defineOperation({
  name: 'staff_get_webhook_endpoint',
  summary: 'Site team: one owner’s webhook endpoint, its recent deliveries and errors',
  description:
    'As staff_list_webhook_health shows an endpoint, with its last 10 errors and its 20 latest deliveries (event type, status, ' +
    'tries, last answer, next try, workflow id), whether it fails or not. Never the signing secret or any payload. ' +
    'For support and admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/webhooks/{endpoint_id}',
  scope: 'staff:webhooks',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ endpoint_id: Id }),
  output: EndpointHealth.extend({ deliveries: z.array(StaffDelivery).describe('The latest 20, newest first') }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'support']);
    const found = await endpointHealth(ctx.db, ctx.site.id, input.endpoint_id, 20);
    await audit(ctx, actor, { operation: 'staff_get_webhook_endpoint', input, target: { kind: 'webhook_endpoint', id: found.id } });
    return found;
  },
});

export const staffWebhookOperations = [staffListWebhookHealthOp, staffGetWebhookEndpointOp] as const;
