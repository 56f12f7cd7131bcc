import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhooks/events.ts';
import { createEndpoint, deleteEndpoint, listEndpoints, rotateSecret, updateEndpoint } from '../domain/webhooks/endpoints.ts';
import { listDeliveries, redeliver } from '../domain/webhooks/deliveries.ts';
import { callerId, defineOperation } from './operation.ts';
import { HttpUrl, Id, oneLine, PageQuery, page } from './schemas.ts';

const EventType = z.enum(WEBHOOK_EVENT_TYPES);
const Events = z
  .array(EventType)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .describe(`Event types to receive: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
const Description = oneLine(200).describe('What the endpoint is for, for you, one line');

const Endpoint = z.object({
  id: Id,
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(EventType),
  enabled: z.boolean(),
  disabled_at: z.string().nullable(),
  disabled_reason: z.enum(['by_owner', 'failing']).nullable().describe('failing: it failed for 3 days and we turned it off'),
  failing_since: z.string().nullable().describe('First failed try since its last success'),
  created_at: z.string(),
  updated_at: z.string(),
});

const EndpointWithSecret = Endpoint.extend({
  secret: z.string().describe('The signing secret (whsec_…): shown only in this answer, keep it'),
});

const Delivery = z.object({
  id: Id,
  endpoint_id: Id,
  event_id: Id,
  event_type: EventType,
  webhook_id: z.string().describe('The `webhook-id` header: the same on every try and redelivery'),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.int(),
  redeliveries: z.int(),
  last_status_code: z.int().nullable().describe('HTTP status of the last try; null when it got no answer'),
  last_error: z.string().nullable(),
  last_attempt_at: z.string().nullable(),
  next_attempt_at: z.string().nullable().describe('When the next try is due; null when none is planned'),
  succeeded_at: z.string().nullable(),
  created_at: z.string(),
  workflow_id: z.string(),
});

const EndpointPath = { endpoint_id: Id };

const WEBHOOK_TAGS = ['webhooks'];

export const createWebhookEndpointOp = defineOperation({
  name: 'create_webhook_endpoint',
  summary: 'Add a webhook endpoint',
  description:
    'We POST each chosen event about your listings and orders to `url` as JSON `{type, created_at, data}`, signed per Standard Webhooks ' +
    '(`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the endpoint’s secret, which this answer shows once. ' +
    'The address must be https and public. A delivery is retried for 3 days; an endpoint failing that long is turned off.',
  method: 'POST',
  path: '/me/webhooks',
  scope: 'webhooks:write',
  idempotent: true,
  errorCodes: ['invalid_url', 'address_refused', 'webhook_endpoint_limit'],
  readOnly: false,
  successStatus: 201,
  tags: WEBHOOK_TAGS,
  input: z.object({ url: HttpUrl.describe('The https address we POST events to'), events: Events, description: Description.optional() }),
  output: EndpointWithSecret,
  handler: (input, ctx) => createEndpoint(ctx, callerId(ctx), input, ctx.config.crawl.allowPrivateNetworks),
});

export const listWebhookEndpointsOp = defineOperation({
  name: 'list_webhook_endpoints',
  summary: 'Your webhook endpoints',
  description: 'Oldest first, without their secrets.',
  method: 'GET',
  path: '/me/webhooks',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: WEBHOOK_TAGS,
  input: z.object({}),
  output: z.object({ items: z.array(Endpoint) }),
  handler: async (_input, ctx) => ({ items: await listEndpoints(ctx.db, callerId(ctx)) }),
});

export const updateWebhookEndpointOp = defineOperation({
  name: 'update_webhook_endpoint',
  summary: 'Change a webhook endpoint’s events, description, or turn it on or off',
  description: 'Turning it on again clears its failure record; events already missed are not sent (redeliver them).',
  method: 'PATCH',
  path: '/me/webhooks/{endpoint_id}',
  scope: 'webhooks:write',
  idempotent: true,
  errorCodes: ['nothing_to_change'],
  readOnly: false,
  tags: WEBHOOK_TAGS,
  input: z.object({
    ...EndpointPath,
    events: Events.optional(),
    enabled: z.boolean().optional(),
    description: Description.nullable().optional(),
  }),
  output: Endpoint,
  handler: ({ endpoint_id, ...changes }, ctx) => updateEndpoint(ctx.db, callerId(ctx), endpoint_id, changes),
});

export const deleteWebhookEndpointOp = defineOperation({
  name: 'delete_webhook_endpoint',
  summary: 'Delete a webhook endpoint',
  description: 'Its deliveries go with it; tries still planned are not made.',
  method: 'DELETE',
  path: '/me/webhooks/{endpoint_id}',
  scope: 'webhooks:write',
  idempotent: true,
  readOnly: false,
  destructive: true,
  tags: WEBHOOK_TAGS,
  input: z.object(EndpointPath),
  output: z.object({ id: Id, deleted: z.literal(true) }),
  async handler(input, ctx) {
    await deleteEndpoint(ctx.db, callerId(ctx), input.endpoint_id);
    return { id: input.endpoint_id, deleted: true as const };
  },
});

export const rotateWebhookSecretOp = defineOperation({
  name: 'rotate_webhook_secret',
  summary: 'Give a webhook endpoint a new signing secret',
  description: 'The new secret is shown once, in this answer; every try from now on (retries too) is signed with it.',
  method: 'POST',
  path: '/me/webhooks/{endpoint_id}/rotate-secret',
  scope: 'webhooks:write',
  idempotent: true,
  readOnly: false,
  destructive: true,
  tags: WEBHOOK_TAGS,
  input: z.object(EndpointPath),
  output: EndpointWithSecret,
  handler: (input, ctx) => rotateSecret(ctx, callerId(ctx), input.endpoint_id),
});

export const listWebhookDeliveriesOp = defineOperation({
  name: 'list_webhook_deliveries',
  summary: 'Recent deliveries of a webhook endpoint',
  description: 'Newest first: the event, tries so far, the last answer’s status code and when the next try is due.',
  method: 'GET',
  path: '/me/webhooks/{endpoint_id}/deliveries',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: WEBHOOK_TAGS,
  input: z.object({ ...EndpointPath, ...PageQuery }),
  output: page(Delivery),
  handler: (input, ctx) => listDeliveries(ctx.db, callerId(ctx), input.endpoint_id, input.page, input.per_page),
});

export const redeliverWebhookOp = defineOperation({
  name: 'redeliver_webhook',
  summary: 'Send a delivery again',
  description:
    'Sends the same event again at once, with the same `webhook-id` (receivers that already have it can ignore it), ' +
    'and retries it as a new delivery would; tries still planned for it are replaced. An endpoint takes at most ' +
    'WEBHOOK_REDELIVERIES_PER_HOUR (default 30) redeliveries an hour; beyond, 429 with Retry-After.',
  method: 'POST',
  path: '/me/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver',
  scope: 'webhooks:write',
  idempotent: true,
  errorCodes: ['webhook_endpoint_disabled', 'rate_limited'],
  readOnly: false,
  tags: WEBHOOK_TAGS,
  input: z.object({ ...EndpointPath, delivery_id: Id }),
  output: Delivery,
  handler: (input, ctx) => redeliver(ctx, callerId(ctx), input.endpoint_id, input.delivery_id, ctx.config.webhooks.redeliveriesPerHour),
});

export const webhookOperations = [
  createWebhookEndpointOp,
  listWebhookEndpointsOp,
  updateWebhookEndpointOp,
  deleteWebhookEndpointOp,
  rotateWebhookSecretOp,
  listWebhookDeliveriesOp,
  redeliverWebhookOp,
];

/** Each event type in words, for pages (src/web takes values from operations, not the domain). */
export { WEBHOOK_EVENT_WORDS, WEBHOOK_EVENT_TYPES } from '../domain/webhooks/events.ts';
