import type { Table } from '../../db/table-types.ts';

/** The tables of accounts people control (migration 052), declared for knex. */

export interface AccountEmailChangeTableRow {
  id: number;
  user_id: number;
  new_email: string;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface AccountExportTableRow {
  id: number;
  user_id: number;
  requested_at: Date;
  ready_at: Date | null;
  expires_at: Date | null;
  archive: unknown;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    account_email_changes: Table<AccountEmailChangeTableRow, 'id' | 'used_at'>;
    account_exports: Table<AccountExportTableRow, 'id' | 'ready_at' | 'expires_at' | 'archive'>;
  }
}
