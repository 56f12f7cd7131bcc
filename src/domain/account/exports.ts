import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppSecrets } from '../../auth/secrets.ts';
import type { Db } from '../../db/knex.ts';
import { appError, notFound } from '../../errors/errors.ts';
import { queueMail } from '../../mail/outbox.ts';
import { accountExportWorkflowId } from '../../workflows/contracts/workflow-ids.ts';
import type { WorkflowStartQueue } from '../ports.ts';
import { recordWorkflowStart } from '../workflow-outbox/starts.ts';
import { buildArchive } from './archive.ts';
import { accountPaths, exportReadyMail } from './mails.ts';

/** The mailed download link works this long after the archive is ready. */
export const EXPORT_LINK_LIFETIME_MS = 7 * 24 * 3600 * 1000;
/** The server secret that signs download links. */
const SIGNING_KEY = 'account-export-links';

export interface ExportView {
  id: number;
  requestedAt: Date;
  readyAt: Date | null;
  expiresAt: Date | null;
}

const view = (r: { id: number | string; requested_at: Date; ready_at: Date | null; expires_at: Date | null }): ExportView => ({
  id: Number(r.id),
  requestedAt: r.requested_at,
  readyAt: r.ready_at,
  expiresAt: r.expires_at,
});

/**
 * Asks for an export: a row, and the start of `account-export:{user}:{id}` recorded in the same
 * transaction (the dispatcher makes it). One export in preparation per person: asking again
 * while one is prepared returns that one.
 */
export async function requestExport(db: Db, starts: WorkflowStartQueue, userId: number, now: Date): Promise<ExportView> {
  const { row, startId } = await db.transaction(async (trx) => {
    await trx('users').where({ id: userId }).forUpdate().first('id');
    const pending = await trx('account_exports').where({ user_id: userId }).whereNull('ready_at').orderBy('id', 'desc').first();
    if (pending) return { row: pending, startId: null };
    const [row] = await trx('account_exports').insert({ user_id: userId, requested_at: now }).returning('*');
    const exportId = Number(row!.id);
    const start = { kind: 'account-export' as const, input: { userId, exportId }, workflowId: accountExportWorkflowId(userId, exportId) };
    return { row: row!, startId: await recordWorkflowStart(trx, start, starts.inlineLeaseMs()) };
  });
  if (startId !== null) await starts.startNow([startId]);
  return view(row);
}

/** One of the person's exports; another person's is not found. */
export async function getExport(db: Db, userId: number, exportId: number): Promise<ExportView> {
  const row = await db('account_exports').where({ id: exportId, user_id: userId }).first('id', 'requested_at', 'ready_at', 'expires_at');
  if (!row) throw notFound('The export');
  return view(row);
}

/**
 * Builds and stores the archive, then queues the mail with its signed link; returns the mail's
 * outbox id (null when there is none to send: the account is gone). Idempotent: a repeat keeps
 * the first archive and the one mail (its dedupe key).
 */
export async function prepareExport(db: Db, secrets: AppSecrets, baseUrl: string, exportId: number, now: Date): Promise<number | null> {
  const row = await db('account_exports as e')
    .join('users as u', 'u.id', 'e.user_id')
    .where('e.id', exportId)
    .first('e.*', 'u.email', 'u.deleted_at');
  if (!row || row.deleted_at) return null;
  let expiresAt = row.expires_at;
  if (!row.ready_at) {
    expiresAt = new Date(now.getTime() + EXPORT_LINK_LIFETIME_MS);
    const archive = await buildArchive(db, row.user_id, now);
    await db('account_exports')
      .where({ id: exportId })
      .whereNull('ready_at')
      .update({ archive: JSON.stringify(archive), ready_at: now, expires_at: expiresAt });
    expiresAt = (await db('account_exports').where({ id: exportId }).first('expires_at'))!.expires_at;
  }
  const expires = expiresAt!.getTime();
  const link = accountPaths.exportDownload(exportId, expires, await signature(secrets, exportId, row.user_id, expires));
  const dedupeKey = `account-export:${exportId}`;
  await queueMail(db, exportReadyMail(baseUrl, row.email, link, expiresAt!, dedupeKey));
  const mail = await db('mail_outbox').where({ dedupe_key: dedupeKey }).first('id');
  return mail ? Number(mail.id) : null;
}

/** A download asked for by the signed-in person, with the link's expiry and signature. */
export interface DownloadRequest {
  userId: number;
  exportId: number;
  expires: number;
  signature: string;
  now: Date;
}

/**
 * The archive, when the link is the one mailed for this export and this person and has not
 * expired; another person's export is not found (their signed link does not open it either).
 */
export async function readArchive(db: Db, secrets: AppSecrets, d: DownloadRequest): Promise<unknown> {
  const row = await db('account_exports').where({ id: d.exportId, user_id: d.userId }).first('archive', 'expires_at');
  if (!row || row.archive == null) throw notFound('The export');
  const expected = Buffer.from(await signature(secrets, d.exportId, d.userId, d.expires));
  const given = Buffer.from(d.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw notFound('The export');
  if (d.expires <= d.now.getTime() || !row.expires_at || row.expires_at.getTime() <= d.now.getTime()) {
    throw appError('export_link_invalid', 'This download link has expired. Ask for a new export on /account.');
  }
  return row.archive;
}

async function signature(secrets: AppSecrets, exportId: number, userId: number, expires: number): Promise<string> {
  return createHmac('sha256', await secrets.get(SIGNING_KEY))
    .update(`${exportId}.${userId}.${expires}`)
    .digest('base64url');
}
