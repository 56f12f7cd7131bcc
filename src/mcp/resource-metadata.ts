import type { Context } from 'koa';
import { SCOPES } from '../auth/scopes.ts';
import type { Config } from '../config.ts';

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** The MCP resource identifier: the audience of its access tokens. */
export const mcpResource = (config: Config) => `${config.baseUrl}${MCP_PATH}`;

/** Challenge of every 401 on /mcp; it tells the client where to start sign-in (RFC 9728). */
export const mcpChallenge = (config: Config) => `Bearer resource_metadata="${config.baseUrl}${RESOURCE_METADATA_PATH}"`;

/** RFC 9728 protected resource metadata, served at the /mcp path-suffixed URL and at the root. */
export function serveResourceMetadata(config: Config) {
  const document = {
    resource: mcpResource(config),
    authorization_servers: [config.baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Listing Directory MCP server',
    resource_documentation: `${config.baseUrl}/api/v1/openapi.json`,
  };
  return function resourceMetadata(ctx: Context) {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = document;
  };
}
