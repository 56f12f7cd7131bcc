import type Provider from 'oidc-provider';
import type { errors } from 'oidc-provider';
import type { OAuthProviderDeps } from './provider.ts';

/** The OAuth provider and oidc-provider's error classes (the consent pages test for them). */
export interface OAuthServer {
  provider: Provider;
  errors: typeof errors;
}

/** Gives the one OAuth provider of the app, built at the first call. */
export type LazyOAuthServer = () => Promise<OAuthServer>;

/**
 * The OAuth provider (provider.ts) is loaded and built on the first request that needs it: an
 * OAuth route or a consent page. Importing oidc-provider and what it brings (jose, its own Koa,
 * ...) costs about 0.3 s of CPU, paid by every process that builds the app; most of them (each
 * test file is one) never answer an OAuth request. This is the one place that loads it: the other
 * modules import only its types. A server pays the load once, on its first OAuth request.
 */
export function lazyOAuthServer(deps: OAuthProviderDeps): LazyOAuthServer {
  let server: Promise<OAuthServer> | undefined;
  return () =>
    (server ??= import('./provider.ts').then(({ createOAuthProvider, oidcErrors }) => ({
      provider: createOAuthProvider(deps),
      errors: oidcErrors,
    })));
}
