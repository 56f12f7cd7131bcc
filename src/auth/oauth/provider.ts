import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/knex.ts';
import { SCOPES } from '../scopes.ts';
import type { OAuthKeys } from './keys.ts';
import { clientMetadataFetch } from './metadata-fetch.ts';
import { postgresAdapter } from './pg-adapter.ts';

/** Access tokens are short-lived JWTs: verified without the database, revocation seen within this. */
export const ACCESS_TOKEN_TTL_SECONDS = 600;
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

export const CONSENT_PATH = '/consent';

/**
 * The OAuth 2.1 authorization server (DESIGN.md §5): issuer = site origin, routes under /oauth,
 * authorization code with PKCE S256 only, open dynamic registration, client ID metadata
 * documents, resource indicators issuing ES256 JWT access tokens for {base}/mcp, rotating
 * refresh tokens. Sign-in and consent are our own pages at /consent/:uid.
 */
export function createOAuthProvider(deps: { config: Config; db: Db; oauthKeys: OAuthKeys; log: Logger }): Provider {
  const { config, db, oauthKeys: keys, log } = deps;
  const resource = config.mcp.resource;
  const fetchMetadata = clientMetadataFetch(config);
  const configuration: Configuration = {
    ...(fetchMetadata ? { fetch: fetchMetadata } : {}),
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
      end_session: '/oauth/logout',
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
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      // The provider's own fetch of metadata documents is SSRF-safe (https only, size and time bounded).
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`the only resource is ${resource}`);
          return {
            scope: SCOPES.join(' '),
            audience: resource,
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
    renderError: (ctx, out) => renderOAuthError(ctx, out),
  };
  const provider = new Provider(config.baseUrl, configuration);
  // Behind a TLS-terminating proxy the request is plain http: the provider must trust
  // X-Forwarded-Proto to set its Secure cookies (the same trust as the app's, see createApp).
  provider.proxy = config.proxyHops > 0;
  provider.maxIpsCount = config.proxyHops;
  provider.on('server_error', (_ctx, err) => log.error({ err }, 'oauth server error'));
  return provider;
}

/** Errors shown in the browser (bad authorization requests that cannot go back to a client). */
function renderOAuthError(ctx: KoaContextWithOIDC, out: { error: string; error_description?: string }): void {
  const escape = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  ctx.type = 'html';
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in request refused</title></head>
<body><main><h1>This sign-in request cannot continue</h1><p>${escape(out.error_description ?? out.error)}</p>
<p>Go back to the application and try again.</p></main></body></html>`;
}
