import Router from '@koa/router';
import Koa from 'koa';
import compose from 'koa-compose';
import { createOAuthProvider } from './auth/oauth/provider.ts';
import { resourceIdentifier, resourceMetadataPath, serveResourceMetadata } from './auth/oauth/resources.ts';
import { oauthRoutes } from './auth/oauth/routes.ts';
import { appError } from './errors.ts';
import { mcpEndpoint } from './mcp/endpoint.ts';
import { MCP_PATH } from './mcp/resource-metadata.ts';
import type { Operation } from './operations/operation.ts';
import type { Services } from './services.ts';
import { consentPages } from './web/pages/consent.ts';
import { webPages } from './web/router.ts';
import { bearerAuth } from './api/middleware/auth.ts';
import { problemErrors } from './api/middleware/errors.ts';
import { requestContext } from './api/middleware/request-context.ts';
import { apiIndex, openApiDocument } from './operations/openapi.ts';
import { paymentWebhooks } from './api/payment-webhooks.ts';
import { restRoutes } from './api/rest-router.ts';
import { paths } from './paths.ts';
import { mediaRouter } from './web/media.ts';

/** The one Koa app serving health, media, OAuth, MCP, REST under /api/v1 and the web pages, built from Services. */
export function createApp(services: Services, operations: readonly Operation[]): Koa {
  // Behind trusted proxies the client is the address the outermost of them saw: only the last
  // `proxyHops` entries of X-Forwarded-For are read, so a client cannot name itself another address.
  const hops = services.config.proxyHops;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true; // errors are logged once, by the problem middleware
  app.use(requestContext(services.log, services.metrics));
  app.use(problemErrors(services.config.baseUrl));

  // The REST API and MCP first: a path check is all they pay for the routes below.
  const document = openApiDocument(operations, services.config.baseUrl);
  const index = apiIndex(operations, services.config.baseUrl);
  const api = restRoutes(operations, services);
  api.add('GET', paths.openApi, (ctx) => {
    ctx.body = document;
  });
  api.add('GET', paths.api, (ctx) => {
    ctx.body = index;
  });
  const apiStack = compose<Koa.Context>([bearerAuth(services.authenticate, resourceIdentifier(services.config, 'api')), api.middleware()]);
  app.use(async function apiOnly(ctx, next) {
    if (ctx.path === '/api' || ctx.path === '/api/') ctx.path = '/api/v1'; // the index of the one version
    if (!ctx.path.startsWith('/api/')) return next();
    await apiStack(ctx, async () => {});
    if (ctx.status === 404 && ctx.body === undefined) {
      throw appError('not_found', `There is no API route ${ctx.method} ${ctx.path}; GET /api/v1 lists them.`);
    }
  });

  const mcp = mcpEndpoint(services, operations);
  app.use(async function mcpOnly(ctx, next) {
    if (ctx.path !== MCP_PATH) return next();
    await mcp(ctx, async () => {});
  });

  const health = new Router(); // health and discovery documents
  health.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  health.get('/readyz', async (ctx) => {
    const checks = {
      database: await probe(() => services.db.raw('SELECT 1')),
      temporal: await probe(() => services.workflows.ping()),
    };
    const ok = Object.values(checks).every((c) => c === 'ok');
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'unavailable', checks };
  });
  health.get(resourceMetadataPath('mcp'), serveResourceMetadata(services.config, 'mcp'));
  health.get('/.well-known/oauth-protected-resource', serveResourceMetadata(services.config, 'mcp'));
  health.get(resourceMetadataPath('api'), serveResourceMetadata(services.config, 'api'));
  app.use(health.routes());
  app.use(mediaRouter(services).routes());

  const oauthProvider = createOAuthProvider(services);
  app.use(oauthRoutes(oauthProvider, services.config, services.db));

  app.use(paymentWebhooks(services));
  // Server-rendered pages (also sign-in and consent of OAuth): every path not taken above.
  app.use(webPages(services, [consentPages(oauthProvider)]));
  return app;
}

async function probe(check: () => Promise<unknown>): Promise<'ok' | 'unreachable'> {
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000))]);
    return 'ok';
  } catch {
    return 'unreachable';
  }
}
