import { rolesOf } from '../domain/staff/roles.ts';
import {
  confirmEnrolment,
  hasFactor,
  isRecent,
  markSessionFactor,
  pendingEnrolment,
  sessionFactor,
  verifyFactor,
  type Enrolment,
  type SecondFactor,
  type SessionFactor,
} from '../domain/staff/second-factor.ts';
import type { OperationContext } from './operation.ts';

/**
 * The staff second factor as the pages use it: for the signed-in person of a web session (its
 * principal's credential is `session:<id hash>`). API keys are not sessions and have no factor.
 */

type Ctx = Pick<OperationContext, 'db' | 'secrets' | 'clock' | 'principal'>;

/** The web session's id hash of this call, or null (an API key, OAuth, a visitor). */
export function sessionIdHashOf(ctx: Pick<OperationContext, 'principal'>): string | null {
  const id = ctx.principal?.credentialId;
  return id?.startsWith('session:') ? id.slice('session:'.length) : null;
}

/** Where the caller stands: not staff, staff without a factor, or staff with one (and this session's). */
export interface FactorStatus {
  staff: boolean;
  enrolled: boolean;
  session: SessionFactor | null;
  /** Verified within the window money actions need. */
  recent: boolean;
}

export async function factorStatus(ctx: Ctx): Promise<FactorStatus> {
  const userId = ctx.principal!.userId;
  const [roles, enrolled, session] = await Promise.all([rolesOf(ctx.db, userId), hasFactor(ctx.db, userId), sessionFactorOf(ctx)]);
  return { staff: roles.length > 0, enrolled, session, recent: isRecent(session, ctx.clock.now()) };
}

/** The factor this call's web session was verified with while it counts; null otherwise (API keys included). */
export async function sessionFactorOf(ctx: Ctx): Promise<SessionFactor | null> {
  const idHash = sessionIdHashOf(ctx);
  return idHash ? sessionFactor(ctx.db, idHash, ctx.clock.now()) : null;
}

/** The secret and URI of the enrolment in progress; null once enrolled. */
export const enrolmentOf = (ctx: Ctx, label: string): Promise<Enrolment | null> =>
  pendingEnrolment(ctx.db, ctx.secrets, ctx.principal!.userId, label);

/** Confirms the enrolment with an app's code; on success this session counts as verified. Recovery codes, or null. */
export async function confirmTotp(ctx: Ctx, code: string): Promise<string[] | null> {
  const codes = await confirmEnrolment(ctx.db, ctx.secrets, ctx.principal!.userId, code, ctx.clock.now());
  if (codes) await markVerified(ctx, 'totp');
  return codes;
}

/** Verifies this session with a TOTP or recovery code; the factor used, or null for a wrong code. */
export async function verifySessionFactor(ctx: Ctx, code: string): Promise<SecondFactor | null> {
  const factor = await verifyFactor(ctx.db, ctx.secrets, ctx.principal!.userId, code, ctx.clock.now());
  if (factor) await markVerified(ctx, factor);
  return factor;
}

async function markVerified(ctx: Ctx, factor: SecondFactor) {
  const idHash = sessionIdHashOf(ctx);
  if (idHash) await markSessionFactor(ctx.db, idHash, factor, ctx.clock.now());
}
