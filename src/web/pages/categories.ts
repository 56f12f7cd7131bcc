import { AppError } from '../../errors.ts';
import { CATEGORY_SLUGS, categoryPage } from '../../operations/read-models/categories.ts';
import { html } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import type { PageRoutes } from './page-routes.ts';

const title = (slug: string) => slug.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());

/** `/categories/{slug}`: the category's live listings, paid category placements first. */
export const categoryPages: PageRoutes = (router, services) => {
  router.get('/categories/{slug}', async function showCategory(ctx) {
    const slug = ctx.params.slug!;
    if (!(CATEGORY_SLUGS as readonly string[]).includes(slug)) throw new AppError('not_found', 'There is no such category.');
    const listings = await categoryPage(await pageContext(ctx, services), slug);
    await renderPage(ctx, services, {
      title: title(slug),
      main: listings.length
        ? html`<ol class="feed">${listings.map(
            (l) =>
              html`<li data-listing="${l.id}"${l.placed ? html` data-placed="true"` : ''}><h2><a href="/listings/${l.slug}">${l.name}</a>${l.placed ? html` <span class="muted">Featured in ${title(slug)}</span>` : ''}</h2>${l.headline ? html`<p>${l.headline}</p>` : ''}</li>`,
          )}</ol>`
        : html`<p>No live listings in this category yet.</p>`,
    });
  });
};
