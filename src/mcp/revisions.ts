import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The protocol revisions /mcp serves. 2026-07-28 is the per-request-envelope era (no initialize,
 * `server/discover` instead); the SDK serves the initialize-based 2025 versions statelessly.
 */
export const MODERN_REVISIONS: readonly string[] = ['2026-07-28'];
export const LEGACY_REVISIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
export const MCP_REVISIONS: readonly string[] = [...MODERN_REVISIONS, ...LEGACY_REVISIONS];
