import type { Context, DefaultState, Middleware } from 'koa';
import type { Operation } from '../operations/operation.ts';
import type { Services } from '../services.ts';

/**
 * /mcp (endpoint.ts), loaded and built at its first request. The MCP SDK and the tool list (the
 * JSON Schema of every operation) cost about 0.2 s of CPU, which every process that builds the
 * app would pay at startup; most of them (each test file is one) never answer /mcp. This is the
 * one place that loads endpoint.ts; a server pays it once, on its first MCP request.
 */
export function lazyMcpEndpoint(services: Services, operations: readonly Operation[]): Middleware<DefaultState, Context> {
  let endpoint: Promise<Middleware<DefaultState, Context>> | undefined;
  return async function mcp(ctx, next) {
    endpoint ??= import('./endpoint.ts').then(({ mcpEndpoint }) => mcpEndpoint(services, operations));
    const handle = await endpoint;
    await handle(ctx, next);
  };
}
