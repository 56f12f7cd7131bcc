import type { Context } from 'koa';
import { SCOPES } from '../auth/scopes.ts';
import { MCP_PATH, type Config } from '../config.ts';
import { absoluteUrl, paths } from '../paths.ts';

export { MCP_PATH };
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/** Challenge of every 401 on /mcp; it tells the client where to start sign-in (RFC 9728). */
export const mcpChallenge = (config: Config) => `Bearer resource_metadata="${config.baseUrl}${RESOURCE_METADATA_PATH}"`;

/** RFC 9728 protected resource metadata, served at the /mcp path-suffixed URL and at the root. */
export function serveResourceMetadata(config: Config) {
  const document = {
    resource: config.mcp.resource,
    authorization_servers: [config.baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Listing Directory MCP server',
    resource_documentation: absoluteUrl(config.baseUrl, paths.openApi),
  };
  return function resourceMetadata(ctx: Context) {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = document;
  };
}
