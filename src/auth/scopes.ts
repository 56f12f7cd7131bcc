import { z } from 'zod';

/** Scopes are independent: `listings:write` does not imply `account:read`. */
export const SCOPES = ['account:read', 'listings:write', 'orders:write', 'webhooks:write'] as const;
export const ScopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof ScopeSchema>;

/** Who is calling: resolved from an API key or an OAuth access token. */
export interface Principal {
  userId: number;
  /** Stable id of the credential, used to scope idempotency keys (`key:12`, `oauth:<jti grant>`). */
  credentialId: string;
  scopes: readonly Scope[];
}
