import { z } from 'zod';

/** Scopes are independent: `listings:write` does not imply `account:read`. */
export const SCOPES = ['account:read', 'account:write', 'listings:write', 'orders:write', 'webhooks:write', 'comments:write'] as const;
/**
 * The site team's scopes: a key gets one only when its person holds a staff role that allows it
 * (src/domain/staff/roles.ts), and every staff operation checks the role again. OAuth, the
 * sessions and the keys page offer only SCOPES (docs/decisions/staff-roles-and-audit.md).
 */
export const STAFF_SCOPES = [
  'staff:orders',
  'staff:claims',
  'staff:flows',
  'staff:webhooks',
  'staff:listings',
  'staff:catalogue',
  'staff:audit',
  'staff:roles',
] as const;
export const ScopeSchema = z.enum([...SCOPES, ...STAFF_SCOPES]);
export type Scope = z.infer<typeof ScopeSchema>;

/** Who is calling: resolved from an API key or an OAuth access token. */
export interface Principal {
  userId: number;
  /** Stable id of the credential, used to scope idempotency keys (`key:12`, `oauth:<jti grant>`). */
  credentialId: string;
  scopes: readonly Scope[];
}
