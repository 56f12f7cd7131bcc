import { resourceIdentifier, resourceMetadataPath } from '../auth/oauth/resources.ts';
import type { Config } from '../config/config.ts';
import { paths } from '../lib/paths.ts';

export const MCP_PATH = paths.mcp;
export const RESOURCE_METADATA_PATH = resourceMetadataPath('mcp');

/** The MCP resource identifier: the audience of its access tokens. */
export const mcpResource = (config: Config) => resourceIdentifier(config, 'mcp');

/** Challenge of every 401 on /mcp; it tells the client where to start sign-in (RFC 9728). */
export const mcpChallenge = (config: Config) => `Bearer resource_metadata="${config.baseUrl}${RESOURCE_METADATA_PATH}"`;
