import type Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../../errors.ts';
import { currentUser, requireUser } from '../session.ts';
import type { WebServices } from '../web-services.ts';

/** The listing a form post is about, with the signed-in person who posts it. */
export interface ListingAction {
  userId: number;
  listing: { id: number; slug: string };
}

/**
 * Registers `POST /listings/:slug/{action}` for signed-in people (the router refuses a post
 * without its CSRF token): `run` does the work through the domain, which decides whether the
 * listing's status allows it; `done` answers (a redirect back).
 */
export function listingAction(
  router: Router,
  services: WebServices,
  action: string,
  run: (act: ListingAction) => Promise<unknown>,
  done: (ctx: Context, slug: string) => void,
): void {
  router.post(`/listings/:slug/${action}`, requireUser(services), async function listingActionFromPage(ctx) {
    const user = (await currentUser(ctx, services))!;
    const listing = await listingBySlug(ctx, services);
    await run({ userId: user.id, listing });
    done(ctx, listing.slug);
  });
}

/** The listing of the path's slug, any status. */
async function listingBySlug(ctx: Context, services: WebServices): Promise<{ id: number; slug: string }> {
  const row = await services
    .db('listings')
    .where({ slug: String(ctx.params.slug) })
    .first('id', 'slug');
  if (!row) throw notFound('The listing');
  return row;
}
