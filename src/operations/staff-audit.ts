import { z } from 'zod';
import { boundOf } from '../domain/orders/search.ts';
import { auditCsv, listAudit, type AuditFilters } from '../domain/staff/audit.ts';
import { validationFailed, type FieldError } from '../errors/errors.ts';
import { defineOperation, type OperationContext } from './operation.ts';
import { PageQuery } from './schemas.ts';
import { asStaff, audit, STAFF_ERROR_CODES } from './staff.ts';

const Filters = {
  user: z.string().max(254).optional().describe('The acting person: an email or a user id'),
  operation: z.string().max(80).optional().describe('An operation name, e.g. staff_refund_order_line'),
  target_kind: z.string().max(40).optional().describe('e.g. order, user'),
  target_id: z.string().max(80).optional().describe('e.g. an order number'),
  from: z.string().max(40).optional().describe('On or after: YYYY-MM-DD or an ISO date-time'),
  to: z.string().max(40).optional().describe('On or before: YYYY-MM-DD (the whole day) or an ISO date-time'),
};

const AuditRow = z.object({
  id: z.string(),
  at: z.string(),
  user_id: z.int().nullable().describe('Null: the admin command line'),
  user_email: z.string().nullable(),
  role: z.string().nullable(),
  factor: z.string().nullable().describe('The second factor used; null until staff have second factors'),
  operation: z.string(),
  input: z.record(z.string(), z.unknown()).describe('As given, with secrets redacted'),
  target_kind: z.string().nullable(),
  target_id: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  request_id: z.string().nullable(),
});

type FilterInput = { [K in keyof typeof Filters]?: string };

function filtersOf(input: FilterInput, ctx: OperationContext): AuditFilters {
  const errors: FieldError[] = [];
  const from = boundOf(input.from?.trim() || undefined, 'start');
  const to = boundOf(input.to?.trim() || undefined, 'end');
  if (from === null) errors.push({ path: 'from', message: 'Must be a date (YYYY-MM-DD) or an ISO date-time.' });
  if (to === null) errors.push({ path: 'to', message: 'Must be a date (YYYY-MM-DD) or an ISO date-time.' });
  if (errors.length) throw validationFailed(errors);
  const { from: _f, to: _t, ...rest } = input;
  return { ...rest, from: from ?? undefined, to: to ?? undefined, siteId: ctx.site.id };
}

export const staffListAuditOp = defineOperation({
  name: 'staff_list_audit',
  summary: 'Site team: the staff audit log of this site',
  description:
    'Every staff action on this site, newest first: who (account, role, second factor), what (operation and its input, ' +
    'secrets redacted), on what, before and after, when, and the request id. Filters narrow together. Admins only; ' +
    'reading the log is itself recorded.',
  method: 'GET',
  path: '/staff/audit',
  scope: 'staff:audit',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ ...Filters, ...PageQuery }),
  output: z.object({ items: z.array(AuditRow), page: z.int(), per_page: z.int(), total: z.int() }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    const { page, per_page, ...filters } = input;
    const found = await listAudit(ctx.db, filtersOf(filters, ctx), page, per_page);
    await audit(ctx, actor, { operation: 'staff_list_audit', input });
    return { ...found, page, per_page };
  },
});

const EXPORT_MAX = 10_000;

export const staffExportAuditOp = defineOperation({
  name: 'staff_export_audit',
  summary: 'Site team: export the staff audit log as CSV or JSON',
  description:
    `The rows staff_list_audit finds (newest first, at most ${EXPORT_MAX}), as one CSV or JSON text in \`content\`, ` +
    'with a file name to save it under. Admins only; the export is itself recorded.',
  method: 'GET',
  path: '/staff/audit/export',
  scope: 'staff:audit',
  idempotent: false,
  readOnly: true,
  errorCodes: STAFF_ERROR_CODES,
  tags: ['staff'],
  input: z.object({ ...Filters, format: z.enum(['csv', 'json']).default('csv') }),
  output: z.object({
    format: z.enum(['csv', 'json']),
    content_type: z.string(),
    filename: z.string(),
    count: z.int(),
    truncated: z.boolean().describe(`Whether more than ${EXPORT_MAX} rows matched (narrow the dates)`),
    content: z.string(),
  }),
  async handler(input, ctx) {
    const actor = await asStaff(ctx, ['admin']);
    const { format, ...filters } = input;
    const { items, total } = await listAudit(ctx.db, filtersOf(filters, ctx), 1, EXPORT_MAX);
    await audit(ctx, actor, { operation: 'staff_export_audit', input, after: { rows: items.length } });
    const day = ctx.clock.now().toISOString().slice(0, 10);
    return {
      format,
      content_type: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json',
      filename: `staff-audit-${ctx.site.key}-${day}.${format}`,
      count: items.length,
      truncated: total > items.length,
      content: format === 'csv' ? auditCsv(items) : JSON.stringify(items, null, 2),
    };
  },
});

export const staffAuditOperations = [staffListAuditOp, staffExportAuditOp] as const;
