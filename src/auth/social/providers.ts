import * as oidc from 'openid-client';
import type { GitHubProviderConfig, GoogleProviderConfig, SocialSignInConfig } from '../../config/social-sign-in.ts';
import type { SignInProvider } from '../../domain/sign-in/tables.ts';
import type { AttemptSecrets } from '../../domain/sign-in/attempts.ts';
import type { ProviderProfile } from '../../domain/sign-in/identities.ts';

/**
 * The two providers through openid-client: Google by OpenID Connect (discovered issuer, ID token
 * checked with its nonce), GitHub by plain OAuth 2 (its web base for authorize and token, its API
 * for the user and the verified addresses). Both with PKCE S256 and `state`.
 */
export interface SocialProvider {
  readonly name: SignInProvider;
  authorizationUrl(secrets: AttemptSecrets, redirectUri: string): Promise<URL>;
  /** Exchanges the code of the callback URL; throws SignInFailed when the provider or the response refuses. */
  finish(callbackUrl: URL, secrets: AttemptSecrets): Promise<ProviderProfile>;
}

export class SignInFailed extends Error {
  readonly kind: 'denied' | 'refused' | 'unreachable';
  constructor(kind: SignInFailed['kind'], message: string, options?: ErrorOptions) {
    super(message, options);
    this.kind = kind;
  }
}

/** The configured providers by name; a provider without client id and secret is absent. */
export function createSocialProviders(config: SocialSignInConfig): Partial<Record<SignInProvider, SocialProvider>> {
  return {
    ...(config.google && { google: googleProvider(config.google) }),
    ...(config.github && { github: gitHubProvider(config.github) }),
  };
}

/** Plain http reaches only loopback outside production: config.ts refused every other http endpoint. */
const insecureAllowed = (url: string) => url.startsWith('http:');

function googleProvider(config: GoogleProviderConfig): SocialProvider {
  let discovered: Promise<oidc.Configuration> | null = null;
  const configuration = () => {
    discovered ??= oidc
      .discovery(new URL(config.issuer), config.clientId, config.clientSecret, undefined, {
        execute: insecureAllowed(config.issuer) ? [oidc.allowInsecureRequests] : [],
      })
      .catch((err: unknown) => {
        discovered = null; // the next attempt discovers again
        throw new SignInFailed('unreachable', `Google's sign-in could not be reached (${String(err)})`, { cause: err });
      });
    return discovered;
  };
  return {
    name: 'google',
    async authorizationUrl(secrets, redirectUri) {
      return oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: redirectUri,
        scope: 'openid email',
        state: secrets.state,
        nonce: secrets.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async finish(callbackUrl, secrets) {
      const tokens = await exchange(await configuration(), callbackUrl, {
        pkceCodeVerifier: secrets.codeVerifier,
        expectedState: secrets.state,
        expectedNonce: secrets.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      // Google puts the address in the ID token; an issuer that keeps it for UserInfo is asked there.
      const facts = 'email' in claims ? claims : await userInfo(await configuration(), tokens.access_token, claims.sub);
      const email = typeof facts.email === 'string' && facts.email_verified === true ? facts.email : null;
      return { provider: 'google', subject: claims.sub, verifiedEmail: email };
    },
  };
}

function gitHubProvider(config: GitHubProviderConfig): SocialProvider {
  const configuration = new oidc.Configuration(
    {
      issuer: config.webUrl,
      authorization_endpoint: `${config.webUrl}/login/oauth/authorize`,
      token_endpoint: `${config.webUrl}/login/oauth/access_token`,
    },
    config.clientId,
    config.clientSecret,
  );
  if (insecureAllowed(config.webUrl) || insecureAllowed(config.apiUrl)) oidc.allowInsecureRequests(configuration);
  return {
    name: 'github',
    async authorizationUrl(secrets, redirectUri) {
      return oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri,
        scope: 'read:user user:email',
        state: secrets.state,
        code_challenge: await oidc.calculatePKCECodeChallenge(secrets.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async finish(callbackUrl, secrets) {
      const tokens = await exchange(configuration, callbackUrl, { pkceCodeVerifier: secrets.codeVerifier, expectedState: secrets.state });
      const user = await gitHubApi<{ id: number }>(configuration, config, tokens.access_token, '/user');
      const emails = await gitHubApi<{ email: string; verified: boolean; primary: boolean }[]>(
        configuration,
        config,
        tokens.access_token,
        '/user/emails',
      );
      const verified = emails.filter((e) => e.verified === true).sort((a, b) => Number(b.primary) - Number(a.primary));
      if (typeof user.id !== 'number') throw new SignInFailed('refused', 'GitHub answered /user without an id');
      return { provider: 'github', subject: String(user.id), verifiedEmail: verified[0]?.email ?? null };
    },
  };
}

async function exchange(configuration: oidc.Configuration, callbackUrl: URL, checks: oidc.AuthorizationCodeGrantChecks) {
  try {
    return await oidc.authorizationCodeGrant(configuration, callbackUrl, checks);
  } catch (err) {
    if (err instanceof oidc.AuthorizationResponseError)
      throw new SignInFailed('denied', `The provider answered ${err.error}`, { cause: err });
    if (err instanceof oidc.ResponseBodyError)
      throw new SignInFailed('refused', `The provider refused the code: ${err.error}`, { cause: err });
    if (err instanceof TypeError) throw new SignInFailed('unreachable', 'The provider could not be reached', { cause: err });
    throw new SignInFailed('refused', `The provider's answer was not accepted: ${String(err)}`, { cause: err });
  }
}

async function userInfo(configuration: oidc.Configuration, accessToken: string, subject: string) {
  try {
    return await oidc.fetchUserInfo(configuration, accessToken, subject);
  } catch (err) {
    throw new SignInFailed('refused', `The provider's UserInfo was not accepted: ${String(err)}`, { cause: err });
  }
}

async function gitHubApi<T>(configuration: oidc.Configuration, config: GitHubProviderConfig, token: string, path: string): Promise<T> {
  const headers = new Headers({ accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
  let response: Response;
  try {
    response = await oidc.fetchProtectedResource(configuration, token, new URL(`${config.apiUrl}${path}`), 'GET', null, headers);
  } catch (err) {
    throw new SignInFailed('unreachable', `GitHub's API could not be reached (${path})`, { cause: err });
  }
  if (!response.ok) throw new SignInFailed('refused', `GitHub's API answered ${response.status} to ${path}`);
  return (await response.json()) as T;
}
