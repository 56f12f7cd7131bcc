import type { Context } from 'koa';
import type { Config } from '../../config/config.ts';
import { absoluteUrl, paths } from '../../lib/paths.ts';
import { publicCors, withCors } from '../../http/cors.ts';
import { SCOPES } from '../scopes.ts';

/**
 * The protected resources of the service. Each accepts only access tokens issued for it (`aud` =
 * its identifier); a client asks for one or both with resource indicators (RFC 8707).
 */
export const RESOURCES = {
  mcp: { path: paths.mcp, name: 'Listing Directory MCP server' },
  api: { path: paths.api, name: 'Listing Directory REST API' },
} as const;

export type ResourceName = keyof typeof RESOURCES;

/** `{base}{path}`: the `resource` a client asks for and the audience of the tokens it gets. */
export const resourceIdentifier = (config: Config, name: ResourceName) => `${config.baseUrl}${RESOURCES[name].path}`;

/** Where the resource's RFC 9728 metadata lives (the path-suffixed well-known URI). */
export const resourceMetadataPath = (name: ResourceName) => `/.well-known/oauth-protected-resource${RESOURCES[name].path}`;

/** The resource whose identifier this is, if any. */
export function resourceNamed(config: Config, identifier: string): ResourceName | undefined {
  return (Object.keys(RESOURCES) as ResourceName[]).find((name) => resourceIdentifier(config, name) === identifier);
}

/** Serves a resource's protected resource metadata (RFC 9728), built from BASE_URL only. */
export function serveResourceMetadata(config: Config, name: ResourceName) {
  const document = {
    resource: resourceIdentifier(config, name),
    authorization_servers: [config.baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: RESOURCES[name].name,
    resource_documentation: absoluteUrl(config.baseUrl, paths.openApi),
  };
  return withCors(publicCors(), function resourceMetadata(ctx: Context) {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = document;
  });
}
