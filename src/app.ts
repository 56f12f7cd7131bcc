import Koa from 'koa';
import { lazyOAuthServer } from './auth/oauth/lazy-provider.ts';
import { resourceIdentifier, resourceMetadataPath, serveResourceMetadata } from './auth/oauth/resources.ts';
import { oauthRoutes } from './auth/oauth/routes.ts';
import { appError } from './errors/errors.ts';
import { lazyMcpEndpoint } from './mcp/lazy-endpoint.ts';
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
import { refuseNulInUrl } from './http/nul-guard.ts';
import { Router } from './http/router.ts';
import { paths } from './lib/paths.ts';
import { mediaRoutes } from './web/media.ts';
import { keptPageLane } from './web/page-cache.ts';

/** The one Koa app serving health, media, OAuth, MCP, REST under /api/v1 and the web pages, built from Services. */
export function createApp(services: Services, operations: readonly Operation[]): Koa {
  // Behind trusted proxies the client is the address the outermost of them saw: only the last
  // `proxyHops` entries of X-Forwarded-For are read, so a client cannot name itself another address.
  const hops = services.config.proxyHops;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true; // errors are logged once, by the problem middleware
  app.use(requestContext(services.log, services.metrics));
  app.use(keptPageLane(services.caches.visitorPages));
  app.use(problemErrors(services.config.baseUrl));
  app.use(refuseNulInUrl);

  // One router: the REST API and MCP first, so a request to them tests few routes.
  const router = new Router();
  const api = router.scope([bearerAuth(services.authenticate, resourceIdentifier(services.config, 'api'))]);
  restRoutes(api, operations, services);
  // Both made at their first request: the document holds the JSON Schema of every operation.
  let document: ReturnType<typeof openApiDocument> | undefined;
  let index: ReturnType<typeof apiIndex> | undefined;
  api.get(paths.openApi, (ctx) => {
    ctx.body = document ??= openApiDocument(operations, services.config.baseUrl);
  });
  for (const path of ['/api', paths.api]) {
    api.get(path, (ctx) => {
      ctx.body = index ??= apiIndex(operations, services.config.baseUrl); // the index of the one version
    });
  }

  const root = router.scope();
  root.add('ALL', MCP_PATH, lazyMcpEndpoint(services, operations));
  root.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  root.get('/readyz', async (ctx) => {
    const checks = {
      database: await probe(() => services.db.raw('SELECT 1')),
      temporal: await probe(() => services.workflows.ping()),
    };
    // Only the database takes an api process out of the load balancer: without Temporal, reads
    // still answer and writes record their workflow starts, made once Temporal is back. Every
    // process shares one Temporal, so failing on it would take them all out at once.
    const ok = checks.database === 'ok';
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? (checks.temporal === 'ok' ? 'ok' : 'degraded') : 'unavailable', checks };
  });
  root.get(resourceMetadataPath('mcp'), serveResourceMetadata(services.config, 'mcp'));
  root.get('/.well-known/oauth-protected-resource', serveResourceMetadata(services.config, 'mcp'));
  root.get(resourceMetadataPath('api'), serveResourceMetadata(services.config, 'api'));
  mediaRoutes(root, services);
  const oauth = lazyOAuthServer(services);
  oauthRoutes(root, oauth, services.config, services.db);
  paymentWebhooks(root, services);
  // Server-rendered pages (also sign-in and consent of OAuth).
  const pageNotFound = webPages(router, services, [consentPages(oauth)]);

  app.use(router.middleware());
  app.use(async function notFound(ctx, next) {
    if (/^\/api(?:\/|$)/i.test(ctx.path)) {
      throw appError('not_found', `There is no API route ${ctx.method} ${ctx.path}; GET /api/v1 lists them.`);
    }
    await pageNotFound(ctx, next);
  });
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
