import { z } from 'zod';
import { getExport, readArchive, requestExport, type ExportView } from '../domain/account/exports.ts';
import { callerId, defineOperation } from './operation.ts';

/** A person's data exports (docs/accounts.md): asked for here, prepared by a workflow, linked by mail. */

const Export = z.object({
  id: z.number().int(),
  status: z.enum(['preparing', 'ready', 'expired']),
  requested_at: z.string(),
  ready_at: z.string().nullable(),
  link_expires_at: z.string().nullable().describe('The mailed download link works until then'),
});

const exportOut = (e: ExportView, now: Date): z.input<typeof Export> => ({
  id: e.id,
  status: !e.readyAt ? 'preparing' : e.expiresAt && e.expiresAt > now ? 'ready' : 'expired',
  requested_at: e.requestedAt.toISOString(),
  ready_at: e.readyAt?.toISOString() ?? null,
  link_expires_at: e.expiresAt?.toISOString() ?? null,
});

export const requestAccountExportOp = defineOperation({
  name: 'request_account_export',
  summary: 'Export your data',
  description:
    'Prepares a JSON archive of everything the service holds about you and mails a download link (7 days; it opens only while signed in as you). While one is being prepared, asking again returns it.',
  method: 'POST',
  path: '/me/exports',
  scope: 'account:write',
  idempotent: false,
  readOnly: false,
  startsWorkflow: true,
  successStatus: 202,
  tags: ['account'],
  input: z.object({}),
  output: Export,
  handler: async (_input, ctx) => {
    const row = await requestExport(ctx.db, ctx.workflowStarts, callerId(ctx), ctx.clock.now());
    return exportOut(row, ctx.clock.now());
  },
});

export const getAccountExportOp = defineOperation({
  name: 'get_account_export',
  summary: 'One of your data exports',
  description: 'Whether the archive is ready and until when its mailed link works. Another person’s export is 404.',
  method: 'GET',
  path: '/me/exports/{id}',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['account'],
  errorCodes: ['not_found'],
  input: z.object({
    id: z.coerce
      .number()
      .int()
      .positive()
      .max(2 ** 53),
  }),
  output: Export,
  handler: async (input, ctx) => exportOut(await getExport(ctx.db, callerId(ctx), input.id), ctx.clock.now()),
});

export const downloadAccountExportOp = defineOperation({
  name: 'download_account_export',
  summary: 'Download a data export',
  description:
    'The archive itself, given the expiry and signature of the mailed link; only for the person it belongs to (another person’s is 404). 410 export_link_invalid once the link expired.',
  method: 'GET',
  path: '/me/exports/{id}/archive',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['account'],
  errorCodes: ['not_found', 'export_link_invalid'],
  input: z.object({
    id: z.coerce
      .number()
      .int()
      .positive()
      .max(2 ** 53),
    expires: z.coerce.number().int().positive().describe('The link’s `expires`'),
    signature: z.string().max(100).describe('The link’s `signature`'),
  }),
  output: z.record(z.string(), z.unknown()).describe('The archive (docs/accounts.md)'),
  handler: async (input, ctx) =>
    (await readArchive(ctx.db, ctx.secrets, {
      userId: callerId(ctx),
      exportId: input.id,
      expires: input.expires,
      signature: input.signature,
      now: ctx.clock.now(),
    })) as Record<string, unknown>,
});

export const accountExportOperations = [requestAccountExportOp, getAccountExportOp, downloadAccountExportOp];
