import type { Table } from '../../db/table-types.ts';

/** The staff tables (migrations 039, 040) as knex sees them. */
export interface StaffRoleTableRow {
  id: number;
  user_id: number;
  role: string;
  /** Null: every site. */
  site_id: number | null;
  granted_by: number | null;
  granted_at: Date;
  revoked_at: Date | null;
  revoked_by: number | null;
}

export interface StaffAuditTableRow {
  id: number;
  at: Date;
  user_id: number | null;
  role: string | null;
  factor: string | null;
  operation: string;
  input: Record<string, unknown>;
  target_kind: string | null;
  target_id: string | null;
  before: unknown;
  after: unknown;
  request_id: string | null;
  site_id: number | null;
}

export interface StaffTotpTableRow {
  user_id: number;
  secret_box: Buffer;
  created_at: Date;
  confirmed_at: Date | null;
  last_step: number | null;
}

export interface StaffRecoveryCodeTableRow {
  id: number;
  user_id: number;
  code_hash: string;
  used_at: Date | null;
}

export interface WebSessionFactorTableRow {
  session_id_hash: string;
  factor: string;
  verified_at: Date;
}

export interface StaffPasskeyTableRow {
  id: number;
  user_id: number;
  /** base64url, as the authenticator names it. */
  credential_id: string;
  /** The COSE public key. */
  public_key: Buffer;
  /** The signature counter: a response may only move it forward. */
  counter: number;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export interface StaffWebauthnChallengeTableRow {
  session_id_hash: string;
  /** register | authenticate */
  purpose: string;
  challenge: string;
  expires_at: Date;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    staff_roles: Table<StaffRoleTableRow, 'id' | 'site_id' | 'granted_by' | 'granted_at' | 'revoked_at' | 'revoked_by'>;
    staff_audit: Table<
      StaffAuditTableRow,
      'id' | 'at' | 'user_id' | 'role' | 'factor' | 'target_kind' | 'target_id' | 'before' | 'after' | 'request_id' | 'site_id'
    >;
    staff_totp: Table<StaffTotpTableRow, 'created_at' | 'confirmed_at' | 'last_step'>;
    staff_recovery_codes: Table<StaffRecoveryCodeTableRow, 'id' | 'used_at'>;
    web_session_factors: Table<WebSessionFactorTableRow>;
    staff_passkeys: Table<StaffPasskeyTableRow, 'id' | 'counter' | 'transports' | 'last_used_at'>;
    staff_webauthn_challenges: Table<StaffWebauthnChallengeTableRow>;
  }
}
