import { z } from 'zod';
import { listIdentities, unlinkIdentity } from '../domain/sign-in/identities.ts';
import { callerId, defineOperation } from './operation.ts';

const Provider = z.enum(['github', 'google']).describe('github or google');

const SignIns = z.object({
  identities: z
    .array(
      z.object({
        provider: Provider,
        email: z.string().describe('The verified address the provider gave when it was linked'),
        linked_at: z.string(),
        last_used_at: z.string().nullable(),
      }),
    )
    .describe('Providers that sign in to this account'),
  has_password: z.boolean().describe('Whether the account has a password too'),
});

export const listSignInIdentitiesOp = defineOperation({
  name: 'list_sign_in_identities',
  summary: 'Your connected sign-ins',
  description:
    'The GitHub and Google accounts that sign in to your account, and whether it has a password. Linking is done in a browser at /account/sign-ins.',
  method: 'GET',
  path: '/me/sign-in-identities',
  scope: 'account:read',
  idempotent: false,
  readOnly: true,
  tags: ['account'],
  input: z.object({}),
  output: SignIns,
  handler: async (_input, ctx) => {
    const { identities, hasPassword } = await listIdentities(ctx.db, callerId(ctx));
    return {
      identities: identities.map((i) => ({
        provider: i.provider,
        email: i.email,
        linked_at: i.linkedAt.toISOString(),
        last_used_at: i.lastUsedAt?.toISOString() ?? null,
      })),
      has_password: hasPassword,
    };
  },
});

export const unlinkSignInIdentityOp = defineOperation({
  name: 'unlink_sign_in_identity',
  summary: 'Unlink a connected sign-in',
  description:
    'The provider no longer signs in to your account. Refused (422 last_sign_in_method) when it is the last way to sign in: no password and no other provider.',
  method: 'DELETE',
  path: '/me/sign-in-identities/{provider}',
  // No narrower scope exists for account settings; unlinking only removes a way in and never the last one.
  scope: 'account:read',
  idempotent: false,
  readOnly: false,
  destructive: true,
  tags: ['account'],
  errorCodes: ['not_found', 'last_sign_in_method'],
  input: z.object({ provider: Provider }),
  output: z.object({ unlinked: Provider }),
  handler: async (input, ctx) => {
    await unlinkIdentity(ctx.db, callerId(ctx), input.provider);
    return { unlinked: input.provider };
  },
});

export const signInIdentityOperations = [listSignInIdentitiesOp, unlinkSignInIdentityOp];
