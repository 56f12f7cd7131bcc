import * as oidc from 'openid-client';
import { SignInFailed, type SocialProvider } from '../auth/social/providers.ts';
import { recordAttempt, takeAttempt } from '../domain/sign-in/attempts.ts';
import { confirmLink, peekLinkRequest, resolveIdentity, type LinkConfirmation, type Resolution } from '../domain/sign-in/identities.ts';
import type { SignInProvider } from '../domain/sign-in/tables.ts';
import type { OperationContext } from './operation.ts';

/**
 * "Continue with GitHub / Google" is a person's step in a browser (the provider's pages, the
 * callback, the mailed link), so it is deliberately not in the registry: no REST route, no MCP
 * tool. The pages call these with the page's context; list and unlink are operations
 * (sign-in-identities.ts).
 */

export const callbackPath = (provider: SignInProvider) => `/signin/${provider}/callback`;

/** Starts an attempt: returns the cookie value that binds it to this browser and where to send the person. */
export async function beginSignIn(
  ctx: OperationContext,
  provider: SocialProvider,
  options: { returnTo: string; link: boolean },
): Promise<{ cookieId: string; redirectTo: URL }> {
  const secrets = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
  const redirectTo = await provider.authorizationUrl(secrets, `${ctx.config.baseUrl}${callbackPath(provider.name)}`);
  const linkUserId = options.link ? (ctx.principal?.userId ?? null) : null;
  const cookieId = await recordAttempt(ctx.db, ctx.clock.now(), {
    provider: provider.name,
    ...secrets,
    linkUserId,
    returnTo: options.returnTo,
  });
  return { cookieId, redirectTo };
}

export type SignInOutcome =
  | (Resolution & { returnTo: string; linking: boolean })
  | { outcome: 'attempt_invalid'; reason: 'missing' | 'wrong_state' | 'used' | 'expired' }
  | { outcome: 'failed'; kind: SignInFailed['kind'] };

/**
 * Finishes an attempt with the provider's callback: the attempt of this browser with the
 * callback's state is used up first, so a replayed callback finds nothing, whatever the
 * provider would say about its code.
 */
export async function finishSignIn(
  ctx: OperationContext,
  provider: SocialProvider,
  cookieId: string | undefined,
  query: URLSearchParams,
): Promise<SignInOutcome> {
  const taken = await takeAttempt(ctx.db, ctx.clock.now(), cookieId, provider.name, query.get('state') ?? '');
  if (!taken.ok) return { outcome: 'attempt_invalid', reason: taken.reason };
  const { attempt } = taken;
  const callbackUrl = new URL(`${ctx.config.baseUrl}${callbackPath(provider.name)}?${query.toString()}`);
  let profile;
  try {
    profile = await provider.finish(callbackUrl, { state: attempt.state, nonce: attempt.nonce ?? '', codeVerifier: attempt.code_verifier });
  } catch (err) {
    if (!(err instanceof SignInFailed)) throw err;
    ctx.log?.warn({ err, provider: provider.name }, 'sign-in with a provider failed');
    return { outcome: 'failed', kind: err.kind };
  }
  const resolution = await resolveIdentity(ctx.db, ctx.config.baseUrl, ctx.clock.now(), profile, attempt.link_user_id);
  return { ...resolution, returnTo: attempt.return_to, linking: attempt.link_user_id !== null };
}

export const peekSignInLink = (ctx: OperationContext, token: string) => peekLinkRequest(ctx.db, ctx.clock.now(), token);

export const confirmSignInLink = (ctx: OperationContext, token: string): Promise<LinkConfirmation> =>
  confirmLink(ctx.db, ctx.clock.now(), token);
