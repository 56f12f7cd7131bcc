import { z } from 'zod';
import { coveredWeeks } from '../domain/orders/line-text.ts';
import { orderIsStuck } from '../domain/flows/retry.ts';
import { workflowUiLink } from '../domain/flows/stuck.ts';
import { orderMails } from '../domain/orders/order-mails.ts';
import { orderDetails, refundOrder } from '../domain/orders/support.ts';
import { ORDER_STATUSES, searchOrders } from '../domain/orders/search.ts';
import { notFound } from '../errors/errors.ts';
import { orderWorkflowId } from '../workflows/contracts/workflow-ids.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

const FoundOrder = z.object({
  number: z.string(),
  status: z.enum(ORDER_STATUSES),
  email: z.string().describe('The buyer’s email'),
  billing_name: z.string().nullable(),
  total_cents: z.int(),
  currency: z.string(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
  invoice_label: z.string().nullable(),
  listings: z.array(z.string()).describe('The listings its lines are for, by name as bought'),
});

export const staffSearchOrdersOp = defineOperation({
  name: 'staff_search_orders',
  summary: 'Site team: find this site’s orders',
  description:
    'Every account’s orders on this site, newest first, narrowed by each filter given: the buyer’s email (any case), ' +
    'a listing (id or slug), a status, and a creation window (`from`/`to`: a date covers the whole day, UTC). ' +
    'For support and admins; the search is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/orders',
  scope: 'staff:orders',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({
    email: z.string().max(254).optional(),
    listing: z.string().max(80).optional().describe('A listing id or slug'),
    status: z
      .string()
      .max(20)
      .optional()
      .describe(`One of ${ORDER_STATUSES.join(', ')}`),
    from: z.string().max(40).optional().describe('Created on or after: YYYY-MM-DD or an ISO date-time'),
    to: z.string().max(40).optional().describe('Created on or before: YYYY-MM-DD (the whole day) or an ISO date-time'),
    limit: z.int().min(1).max(100).default(50),
  }),
  output: z.object({ items: z.array(FoundOrder) }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'support']);
    const rows = await searchOrders(ctx.db, { ...input, site: ctx.site.key });
    await audit(ctx, actor, { operation: 'staff_search_orders', input, after: { found: rows.length } });
    const items = rows.map(({ site: _site, ...r }) => ({
      ...r,
      created_at: r.created_at.toISOString(),
      paid_at: r.paid_at?.toISOString() ?? null,
    }));
    return { items };
  },
});

const Ended = z.object({ kind: z.string(), listing_id: z.int(), text: z.string() });

export const staffRefundOrderLineOp = defineOperation({
  name: 'staff_refund_order_line',
  summary: 'Site team: refund an order, or one of its lines',
  description:
    'Gives the money back (a line: its net plus VAT; no `line`: every line not refunded yet) and ends what it bought at once: ' +
    'featured weeks and category places from this week on, billboard days from today, an unlocked section, a paid launch ' +
    'not live yet. The buyer gets a mail saying what ended. `reason` is for the staff audit log, not the buyer. ' +
    'For support and admins.',
  method: 'POST',
  path: '/staff/orders/{number}/refund',
  scope: 'staff:orders',
  idempotent: true,
  readOnly: false,
  destructive: true,
  errorCodes: [...STAFF_ERROR_CODES, 'order_not_paid', 'already_refunded', 'payments_unavailable'],
  tags: ['staff'],
  input: z.object({
    number: z.string().min(1).max(40).describe('The order number'),
    line: z.int().min(0).max(1000).optional().describe('The line’s position (0, 1, ...); without it, the whole order'),
    reason: z.string().trim().min(1).max(500).describe('Why, for the audit log'),
  }),
  output: z.object({
    number: z.string(),
    status: z.enum(ORDER_STATUSES),
    amount_cents: z.int(),
    refunded: z.array(z.object({ position: z.int(), product: z.string(), listing_id: z.int().nullable(), ended: z.array(Ended) })),
  }),
  handler: (input, ctx) => refundAsStaff(input, ctx),
});

async function refundAsStaff(input: { number: string; line?: number; reason: string }, ctx: OperationContext) {
  const actor = await asStaff(ctx, ['admin', 'support']);
  const { order, lines } = await orderDetails(ctx.db, input.number);
  // Another site's order is not found, as another owner's resource is.
  if (order.site_id !== ctx.site.id) throw notFound(`Order ${input.number}`);
  const before = {
    status: order.status,
    lines: lines.map((l) => ({ position: l.position, product: l.product, listing_id: l.listing_id, refunded: l.refunded_at !== null })),
  };
  let status = order.status;
  const deps = { config: ctx.config, payments: ctx.payments, workflows: ctx.workflows, clock: ctx.clock };
  const { amountCents, refunded } = await refundOrder(ctx.db, deps, order.number, input.line, {
    async inTransaction(trx, done) {
      status = (await trx('orders').where({ id: order.id }).first('status'))!.status;
      const after = { status, amount_cents: done.amountCents, refunded: done.refunded.map(lineView) };
      const target = { kind: 'order', id: order.number };
      await audit(ctx, actor, { operation: 'staff_refund_order_line', input, target, before, after }, trx);
    },
  });
  return { number: order.number, status, amount_cents: amountCents, refunded: refunded.map(lineView) };
}

const lineView = (r: Awaited<ReturnType<typeof refundOrder>>['refunded'][number]) => ({
  position: r.line.position,
  product: r.line.product,
  listing_id: r.line.listing_id,
  ended: r.ended.map((e) => ({ kind: e.kind, listing_id: e.listing_id, text: e.text })),
});

const StaffLine = z.object({
  position: z.int(),
  product: z.string(),
  listing_id: z.int().nullable(),
  listing_name: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  net_cents: z.int(),
  vat_cents: z.int(),
  weeks: z.array(z.string()).nullable().describe('The ISO weeks the line covers (featured, a scheduled launch); null otherwise'),
  fulfilled_at: z.string().nullable(),
  refunded_at: z.string().nullable(),
  ended: z.array(Ended).describe('What its refund ended (empty until refunded)'),
});

const StaffMail = z.object({
  to: z.string(),
  subject: z.string(),
  queued_at: z.string(),
  sent_at: z.string().nullable().describe('Null: not sent yet'),
  attempts: z.int(),
  last_error: z.string().nullable(),
  given_up: z.boolean().describe('Sending was given up (refused for good, or out of attempts)'),
});

export const staffGetOrderOp = defineOperation({
  name: 'staff_get_order',
  summary: 'Site team: one order of this site in full',
  description:
    'An order as support needs it: the buyer, its lines with the weeks each covers, the payment events, the refunds and what ' +
    'each refunded line ended, the mails sent about it, its workflow (id, state, Temporal UI link) and whether it is stuck ' +
    '(staff_replay_order replays it then). For support and admins; the read is recorded in the staff audit log.',
  method: 'GET',
  path: '/staff/orders/{number}',
  scope: 'staff:orders',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ number: z.string().min(1).max(40).describe('The order number') }),
  output: FoundOrder.omit({ invoice_label: true, listings: true }).extend({
    payment_method: z.string().nullable(),
    attention_reason: z.string().nullable(),
    workflow_id: z.string(),
    workflow_state: z
      .enum(['running', 'completed', 'failed', 'canceled', 'terminated', 'continued_as_new', 'timed_out', 'paused', 'unknown', 'missing'])
      .describe('Where its workflow’s latest run stands; `unknown` while Temporal does not answer'),
    workflow_url: z.string().describe('Its workflow in the Temporal UI'),
    stuck: z.boolean().describe('Paid and not fulfilled for a while, or needing attention: staff_replay_order replays it'),
    lines: z.array(StaffLine),
    payments: z.array(z.object({ type: z.string(), provider: z.string(), received_at: z.string() })),
    refunds: z.array(z.object({ amount_cents: z.int(), line_position: z.int().nullable(), created_at: z.string() })),
    mails: z.array(StaffMail).describe('The mails about the order: receipt, refunds, lines that could not be delivered'),
  }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin', 'support']);
    const { order, buyerEmail, lines, events, refunds } = await orderDetails(ctx.db, input.number);
    if (order.site_id !== ctx.site.id) throw notFound(`Order ${input.number}`);
    await audit(ctx, actor, { operation: 'staff_get_order', input, target: { kind: 'order', id: order.number } });
    const workflowId = orderWorkflowId(order.number);
    // The order reads from the database; Temporal being away only hides its workflow's state.
    const [mails, workflowState] = await Promise.all([
      orderMails(ctx.db, order.number),
      ctx.workflows.workflowStatus(workflowId).catch(() => 'unknown' as const),
    ]);
    const positionOf = new Map(lines.map((l) => [l.id, l.position]));
    return {
      number: order.number,
      status: order.status,
      email: buyerEmail,
      billing_name: order.billing.name,
      total_cents: order.total_cents,
      currency: order.currency,
      created_at: order.created_at.toISOString(),
      paid_at: order.paid_at?.toISOString() ?? null,
      payment_method: order.payment_method,
      attention_reason: order.attention_reason,
      workflow_id: workflowId,
      workflow_state: workflowState,
      workflow_url: workflowUiLink(ctx.config, workflowId),
      stuck: orderIsStuck(order, ctx.clock.now()),
      lines: lines.map((l) => ({
        position: l.position,
        product: l.product,
        listing_id: l.listing_id,
        listing_name: l.listing_name,
        options: l.options,
        net_cents: l.net_cents,
        vat_cents: l.vat_cents,
        weeks: coveredWeeks(l, order.paid_at),
        fulfilled_at: l.fulfilled_at?.toISOString() ?? null,
        refunded_at: l.refunded_at?.toISOString() ?? null,
        ended: l.ended.map((e) => ({ kind: e.kind, listing_id: e.listing_id, text: e.text })),
      })),
      payments: events.map((e) => ({ type: e.type, provider: e.provider, received_at: new Date(e.received_at).toISOString() })),
      refunds: refunds.map((r) => ({
        amount_cents: r.amount_cents,
        line_position: r.order_line_id === null ? null : (positionOf.get(r.order_line_id) ?? null),
        created_at: new Date(r.created_at).toISOString(),
      })),
      mails: mails.map((m) => ({
        to: m.to,
        subject: m.subject,
        queued_at: m.queuedAt.toISOString(),
        sent_at: m.sentAt?.toISOString() ?? null,
        attempts: m.attempts,
        last_error: m.lastError,
        given_up: m.givenUpAt !== null,
      })),
    };
  },
});

export const staffOrderOperations = [staffSearchOrdersOp, staffRefundOrderLineOp, staffGetOrderOp] as const;
