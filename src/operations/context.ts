import type { Logger } from 'pino';
import type { Principal } from '../auth/scopes.ts';
import { siteForHost } from '../domain/sites/sites.ts';
import type { Services } from '../services.ts';
import type { OperationContext } from './operation.ts';

/** What a transport knows about one call; the rest of the context comes from the services. */
export interface CallInfo {
  log: Logger;
  requestId: string;
  /** The Host the request came to; picks the site. */
  host: string;
  principal: Principal | null;
  /** The client's address (after trusted proxies); rate limits count it. */
  clientIp?: string;
}

/** The context an operation handler runs with, the same for REST and MCP. */
export async function operationContext(
  services: Pick<
    Services,
    'db' | 'config' | 'workflows' | 'workflowStarts' | 'search' | 'caches' | 'badgeAgent' | 'payments' | 'media' | 'clock' | 'secrets'
  >,
  call: CallInfo,
): Promise<OperationContext> {
  return {
    db: services.db,
    config: services.config,
    workflows: services.workflows,
    workflowStarts: services.workflowStarts,
    search: services.search,
    caches: services.caches,
    get badgeAgent() {
      return services.badgeAgent; // built at the first badge check (services.ts)
    },
    payments: services.payments,
    media: services.media,
    get log() {
      return call.log; // a transport may make its logger only when it is used
    },
    requestId: call.requestId,
    site: await siteForHost(services.db, services.caches.sites, call.host),
    principal: call.principal,
    clientIp: call.clientIp ?? 'unknown',
    clock: services.clock,
    secrets: services.secrets,
  };
}
