import type { Table } from '../../db/table-types.ts';

/** The tables of signing in with another provider (migration 048), declared for knex. */

export type SignInProvider = 'github' | 'google';

export interface SignInIdentityTableRow {
  id: number;
  provider: SignInProvider;
  subject: string;
  user_id: number;
  email: string;
  created_at: Date;
  last_used_at: Date | null;
}

export interface SignInAttemptTableRow {
  id_hash: string;
  provider: SignInProvider;
  state: string;
  nonce: string | null;
  code_verifier: string;
  link_user_id: number | null;
  return_to: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface SignInLinkRequestTableRow {
  id: number;
  token_hash: string;
  user_id: number;
  provider: SignInProvider;
  subject: string;
  email: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

declare module 'knex/types/tables.js' {
  interface Tables {
    sign_in_identities: Table<SignInIdentityTableRow, 'id' | 'created_at' | 'last_used_at'>;
    sign_in_attempts: Table<SignInAttemptTableRow, 'nonce' | 'link_user_id' | 'return_to' | 'created_at' | 'used_at'>;
    sign_in_link_requests: Table<SignInLinkRequestTableRow, 'id' | 'created_at' | 'used_at'>;
  }
}
