import Provider, { errors, type Configuration } from 'oidc-provider';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { Db } from '../../db/knex.ts';
import { SCOPES } from '../scopes.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from './grants.ts';
import { keepPreConsentErrorsHome, renderOAuthError } from './authorization-errors.ts';
import type { OAuthKeys } from './keys.ts';
import { clientMetadataFetch, metadataFetchAllowed } from './metadata-fetch.ts';
import { authorizationParamChecks } from './stored-text.ts';
import { postgresAdapter } from './pg-adapter.ts';
import { resourceIdentifier, resourceNamed } from './resources.ts';

const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

export const CONSENT_PATH = '/consent';

/**
 * The OAuth 2.1 authorization server (docs/mcp-oauth.md: "Signing in from an MCP client"): issuer = site origin, routes under /oauth,
 * authorization code with PKCE S256 only, open dynamic registration, client ID metadata
 * documents, resource indicators issuing ES256 JWT access tokens for {base}/mcp or
 * {base}/api/v1 (one audience each), rotating refresh tokens. Sign-in and consent are our own
 * pages at /consent/{uid}.
 */
export interface OAuthProviderDeps {
  config: Config;
  db: Db;
  oauthKeys: OAuthKeys;
  log: Logger;
}

/** oidc-provider's error classes, for the modules that import it only through lazy-provider.ts. */
export { errors as oidcErrors };

export function createOAuthProvider(deps: OAuthProviderDeps): Provider {
  const { config, db, oauthKeys: keys, log } = deps;
  const mcp = resourceIdentifier(config, 'mcp');
  const allowMetadataFetch = metadataFetchAllowed(config);
  const page = { https: config.baseUrl.startsWith('https:') };
  const configuration: Configuration = {
    // The only outgoing requests of the provider are client ID metadata documents.
    fetch: clientMetadataFetch(config),
    adapter: postgresAdapter(db),
    jwks: { keys: keys.signing as NonNullable<Configuration['jwks']>['keys'] },
    cookies: { keys: keys.cookieKeys, long: { signed: true }, short: { signed: true } },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      registration: '/oauth/register',
      jwks: '/oauth/jwks',
      revocation: '/oauth/revoke',
      userinfo: '/oauth/userinfo',
      introspection: '/oauth/introspect',
      pushed_authorization_request: '/oauth/par',
      code_verification: '/oauth/device',
      device_authorization: '/oauth/device/auth',
      backchannel_authentication: '/oauth/backchannel',
      challenge: '/oauth/challenge',
    },
    // OAuth 2.1: the authorization code flow only (no implicit or hybrid response types).
    responseTypes: ['code'],
    scopes: ['openid', 'offline_access', ...SCOPES],
    // Not new parameters: validators of the standard ones, run before anything is stored.
    extraParams: authorizationParamChecks(),
    claims: { openid: ['sub'] },
    clientDefaults: {
      application_type: 'native', // loopback redirect URIs on any port
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'], userinfoSigningAlgValues: ['ES256'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // Nothing signs out through the provider (our sessions are the web's): no logout endpoint
      // that would redirect anywhere a client registered.
      rpInitiatedLogout: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      // The provider's own fetch refuses special-use addresses only after connecting (and not at
      // all when it cannot find undici's Agent): ours goes through the crawler's address guard.
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        allowFetch: (_ctx, clientId) => allowMetadataFetch(clientId),
      },
      resourceIndicators: {
        enabled: true,
        // Without `resource` a request is for MCP; a token request of a grant for both gets an MCP token.
        defaultResource: (_ctx, _client, oneOf) => (!oneOf || oneOf.includes(mcp) ? mcp : oneOf),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!resourceNamed(config, indicator)) {
            throw new errors.InvalidTarget(`the resources are ${mcp} and ${resourceIdentifier(config, 'api')}`);
          }
          // One audience per token: an MCP token is refused by the REST API and the other way round.
          return {
            scope: SCOPES.join(' '),
            audience: indicator,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
    // Only the grant given on the consent page of this very authorization counts: every
    // authorization shows the consent page, so a person always sees who asks for what.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    // The grant id lets a resource server refuse tokens of a revoked grant without a lookup per call.
    extraTokenClaims: (_ctx, token) => ('grantId' in token ? { gid: token.grantId } : {}),
    interactions: { url: (_ctx, interaction) => `${CONSENT_PATH}/${interaction.uid}` },
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 15 * 60,
      Session: 14 * 24 * 3600,
      Grant: 365 * 24 * 3600,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
    },
    renderError: (ctx, out) => renderOAuthError(ctx, out, page),
  };
  const provider = new Provider(config.baseUrl, configuration);
  // Behind a TLS-terminating proxy the request is plain http: the provider must trust
  // X-Forwarded-Proto to set its Secure cookies (the same trust as the app's, see createApp).
  provider.proxy = config.proxyHops > 0;
  provider.maxIpsCount = config.proxyHops;
  provider.on('server_error', (_ctx, err) => log.error({ err }, 'oauth server error'));
  keepPreConsentErrorsHome(provider, page);
  return provider;
}
