import type { RouteContext, RouteScope } from '../../http/router.ts';
import { listingBySlug } from '../../operations/read-models/listings.ts';
import { requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';

/**
 * Registers `POST /listings/{slug}/{action}` for signed-in people (the router refuses a post
 * without its CSRF token): `run` acts on the listing of the path (the operation it calls decides
 * whether the listing's status allows it); `done` answers (a redirect back).
 */
export function listingAction(
  router: RouteScope,
  services: WebServices,
  action: string,
  run: (ctx: RouteContext, listing: { id: number; slug: string }) => Promise<unknown>,
  done: (ctx: RouteContext, slug: string) => void,
): void {
  router.post(`/listings/{slug}/${action}`, requireUser(services), async function listingActionFromPage(ctx) {
    const listing = await listingBySlug(services, String(ctx.params.slug));
    await run(ctx, listing);
    done(ctx, listing.slug);
  });
}
