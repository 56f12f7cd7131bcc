import { z } from 'zod';
import { PasswordSchema } from '../auth/passwords.ts';
import { deleteAccount } from '../domain/account/deletion.ts';
import { confirmEmailChange, requestEmailChange } from '../domain/account/email-change.ts';
import { changePassword } from '../domain/account/password.ts';
import { endOtherSessions, endSessionOf, listSessions } from '../domain/account/sessions.ts';
import { callerId, defineOperation } from './operation.ts';
import { sessionIdHashOf } from './second-factor.ts';

/**
 * The account's own controls (docs/accounts.md): its sessions, its email and password, and its
 * deletion. Changes need `account:write`, a scope of its own: a key that reads the account must
 * not be able to take it over (change its email) or delete it.
 */

const Session = z.object({
  id: z.string().describe('Names the session in end_session'),
  device: z.string().describe('Browser and system it signed in from, e.g. "Firefox on Windows"'),
  created_at: z.string().describe('When it signed in'),
  last_seen_at: z.string(),
  current: z.boolean().describe('This session: the browser asking (never true for an API key)'),
});

export const listSessionsOp = defineOperation({
  name: 'list_sessions',
  summary: 'Your signed-in sessions and devices',
  description: 'The web sessions signed in to your account: device, when they signed in and were last used, and which one is this one.',
  method: 'GET',
  path: '/me/sessions',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['account'],
  input: z.object({}),
  output: z.object({ items: z.array(Session) }),
  handler: async (_input, ctx) => {
    const sessions = await listSessions(ctx.db, callerId(ctx), ctx.clock.now(), sessionIdHashOf(ctx));
    return {
      items: sessions.map((s) => ({
        id: s.id,
        device: s.device,
        created_at: s.createdAt.toISOString(),
        last_seen_at: s.lastSeenAt.toISOString(),
        current: s.current,
      })),
    };
  },
});

export const endSessionOp = defineOperation({
  name: 'end_session',
  summary: 'Sign a session out',
  description: 'Signs one of your sessions out at once (a lost phone, a shared computer). Another person’s session id is 404.',
  method: 'DELETE',
  path: '/me/sessions/{id}',
  scope: 'account:write',
  idempotent: false,
  readOnly: false,
  destructive: true,
  tags: ['account'],
  errorCodes: ['not_found'],
  input: z.object({ id: z.string().max(100).describe('A session id from list_sessions') }),
  output: z.object({ ended: z.string() }),
  handler: async (input, ctx) => {
    await endSessionOf(ctx.db, callerId(ctx), input.id);
    return { ended: input.id };
  },
});

export const endOtherSessionsOp = defineOperation({
  name: 'end_other_sessions',
  summary: 'Sign out every other session',
  description: 'Signs out all your web sessions but the one asking (called with an API key: all of them). API keys stay.',
  // The collection's DELETE: a path beside /me/sessions/{id} would be read as a session's id.
  method: 'DELETE',
  path: '/me/sessions',
  scope: 'account:write',
  idempotent: false,
  readOnly: false,
  destructive: true,
  tags: ['account'],
  input: z.object({}),
  output: z.object({ ended: z.number().int().describe('How many sessions were signed out') }),
  handler: async (_input, ctx) => ({ ended: await endOtherSessions(ctx.db, callerId(ctx), sessionIdHashOf(ctx)) }),
});

const Email = z.email('Enter an email address like name@example.com.').max(254, 'An email address has at most 254 characters.');

export const changeEmailOp = defineOperation({
  name: 'change_email',
  summary: 'Change your email address',
  description:
    'Mails a single-use link (24 hours) to the new address and a notice to the current one. Nothing changes until the link is opened; 409 email_taken when an account has the address.',
  method: 'POST',
  path: '/me/email-change',
  scope: 'account:write',
  idempotent: false,
  readOnly: false,
  successStatus: 202,
  tags: ['account'],
  errorCodes: ['email_taken', 'rate_limited'],
  input: z.object({ email: Email.describe('The new address') }),
  output: z.object({ pending_email: z.string(), link_expires_at: z.string() }),
  handler: async (input, ctx) => {
    const { expiresAt } = await requestEmailChange(ctx.db, ctx.config.baseUrl, callerId(ctx), input.email, ctx.clock.now());
    return { pending_email: input.email, link_expires_at: expiresAt.toISOString() };
  },
});

export const confirmEmailChangeOp = defineOperation({
  name: 'confirm_email_change',
  summary: 'Confirm a new email address',
  description:
    'Uses the token of the link mailed to the new address: the account’s address becomes it. 410 email_link_invalid when expired or used.',
  method: 'POST',
  path: '/email-changes/confirm',
  idempotent: false,
  readOnly: false,
  tags: ['account'],
  errorCodes: ['email_link_invalid', 'email_taken'],
  input: z.object({ token: z.string().min(1).max(100).describe('The token of the mailed link') }),
  output: z.object({ email: z.string() }),
  handler: async (input, ctx) => ({ email: (await confirmEmailChange(ctx.db, input.token, ctx.clock.now())).email }),
});

export const changePasswordOp = defineOperation({
  name: 'change_password',
  summary: 'Change your password',
  description:
    'Needs current_password (or, in a browser, a sign-in within 10 minutes). Every other session is signed out. 403 wrong_password or reauthentication_required.',
  method: 'POST',
  path: '/me/password',
  scope: 'account:write',
  idempotent: false,
  readOnly: false,
  tags: ['account'],
  errorCodes: ['wrong_password', 'reauthentication_required'],
  input: z.object({
    current_password: z.string().max(1000).optional().describe('Your password now'),
    new_password: PasswordSchema.describe('At least 10 characters'),
  }),
  output: z.object({ sessions_ended: z.number().int() }),
  handler: async (input, ctx) => ({
    sessions_ended: await changePassword(ctx.db, {
      userId: callerId(ctx),
      currentPassword: input.current_password,
      newPassword: input.new_password,
      sessionIdHash: sessionIdHashOf(ctx),
      now: ctx.clock.now(),
    }),
  }),
});

export const deleteAccountOp = defineOperation({
  name: 'delete_account',
  summary: 'Delete your account',
  description:
    'Deletes your account for good after you prove it is yours: `password`, or for an account without one a sign-in within 10 minutes. Your listings are unlisted, orders and invoices kept, votes stay counted without you, comments read "deleted account" (docs/accounts.md). 403 wrong_password or reauthentication_required.',
  method: 'POST',
  path: '/me/deletion',
  scope: 'account:write',
  idempotent: false,
  readOnly: false,
  destructive: true,
  tags: ['account'],
  errorCodes: ['wrong_password', 'reauthentication_required', 'not_found'],
  input: z.object({
    password: z.string().max(1000).optional().describe('Your current password'),
    confirm: z.literal('delete my account', { error: 'Type "delete my account" to confirm.' }).describe('The words "delete my account"'),
  }),
  output: z.object({
    deleted: z.literal(true),
    listings_unlisted: z.number().int(),
    orders_kept: z.number().int(),
    votes_kept: z.number().int(),
    comments_kept: z.number().int(),
  }),
  handler: async (input, ctx) => {
    const report = await deleteAccount(ctx.db, {
      userId: callerId(ctx),
      password: input.password,
      sessionIdHash: sessionIdHashOf(ctx),
      now: ctx.clock.now(),
      requestId: ctx.requestId,
    });
    // The keys are gone; cached ones must fail at once too (the cache knows hashes, not owners).
    ctx.caches.apiKeys.clear();
    return {
      deleted: true as const,
      listings_unlisted: report.listingsUnlisted,
      orders_kept: report.ordersKept,
      votes_kept: report.votesKept,
      comments_kept: report.commentsKept,
    };
  },
});

export const accountOperations = [
  listSessionsOp,
  endSessionOp,
  endOtherSessionsOp,
  changeEmailOp,
  confirmEmailChangeOp,
  changePasswordOp,
  deleteAccountOp,
];
