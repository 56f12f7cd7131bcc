import type { Db } from '../../db/knex.ts';
import type { StaffAuditTableRow } from './tables.ts';
import type { StaffActor } from './access.ts';

/**
 * The staff audit log: one row per staff action, written in the transaction of its effect where
 * there is one, never changed afterwards (the database refuses UPDATE and DELETE, migration 039).
 */

/** Field names whose values never enter the log, at any depth. */
const SECRET = /pass(word)?|secret|token|api_?key|^key$|authorization|cookie|card|cvc|cvv|iban/i;
const REDACTED = '[redacted]';

/** A copy of `value` with every secret-named field's value replaced. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET.test(k) ? REDACTED : redact(v)]));
  }
  return value;
}

/** One staff action as it enters the log. */
export interface AuditEntry {
  /** Null: the admin command line. */
  actor: StaffActor | null;
  operation: string;
  input: Record<string, unknown>;
  target?: { kind: string; id: string | number };
  before?: unknown;
  after?: unknown;
  requestId?: string | null;
  siteId?: number | null;
  at: Date;
}

/** Appends one row; pass the transaction of the action's effect. */
export async function recordAudit(db: Db, e: AuditEntry): Promise<void> {
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(redact(v)));
  await db('staff_audit').insert({
    at: e.at,
    user_id: e.actor?.userId ?? null,
    role: e.actor?.role ?? null,
    factor: e.actor?.factor ?? null,
    operation: e.operation,
    input: JSON.stringify(redact(e.input)),
    target_kind: e.target?.kind ?? null,
    target_id: e.target === undefined ? null : String(e.target.id),
    before: json(e.before),
    after: json(e.after),
    request_id: e.requestId ?? null,
    site_id: e.siteId ?? null,
  });
}

/** Filters of the audit listing (all optional, together). */
export interface AuditFilters {
  /** The acting person: an email (any case) or a user id. */
  user?: string;
  operation?: string;
  target_kind?: string;
  target_id?: string;
  from?: Date;
  /** Exclusive. */
  to?: Date;
  siteId: number;
}

/** One row of the log as staff read it. */
export type AuditView = Omit<StaffAuditTableRow, 'id' | 'at' | 'site_id'> & {
  id: string;
  at: string;
  user_email: string | null;
};

/** A page of the site's log, newest first, with the total. */
export async function listAudit(db: Db, f: AuditFilters, page: number, perPage: number): Promise<{ items: AuditView[]; total: number }> {
  const q = db('staff_audit as a').leftJoin('users as u', 'u.id', 'a.user_id').where('a.site_id', f.siteId);
  if (f.user) {
    if (/^\d{1,9}$/.test(f.user)) q.where('a.user_id', Number(f.user));
    else q.whereRaw('lower(u.email) = lower(?)', [f.user]);
  }
  if (f.operation) q.where('a.operation', f.operation);
  if (f.target_kind) q.where('a.target_kind', f.target_kind);
  if (f.target_id) q.where('a.target_id', f.target_id);
  if (f.from) q.where('a.at', '>=', f.from);
  if (f.to) q.where('a.at', '<', f.to);
  const [{ total }] = await q.clone().count<{ total: string }[]>('* as total');
  const rows = await q
    .orderBy('a.id', 'desc')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .select('a.*', 'u.email as user_email');
  const items = rows.map((r) => ({
    id: String(r.id),
    at: r.at.toISOString(),
    user_id: r.user_id,
    user_email: r.user_email ?? null,
    role: r.role,
    factor: r.factor,
    operation: r.operation,
    input: r.input,
    target_kind: r.target_kind,
    target_id: r.target_id,
    before: r.before,
    after: r.after,
    request_id: r.request_id,
  }));
  return { items, total: Number(total) };
}

const CSV_COLUMNS = [
  'id',
  'at',
  'user_id',
  'user_email',
  'role',
  'factor',
  'operation',
  'target_kind',
  'target_id',
  'request_id',
  'input',
  'before',
  'after',
] as const;

/** RFC 4180 CSV of audit rows; JSON columns as JSON text. Cells starting like a formula are quoted with a leading apostrophe. */
export function auditCsv(rows: AuditView[]): string {
  const cell = (v: unknown) => {
    let text = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const lines = rows.map((r) => CSV_COLUMNS.map((c) => cell(r[c])).join(','));
  return [CSV_COLUMNS.join(','), ...lines].join('\r\n') + '\r\n';
}
