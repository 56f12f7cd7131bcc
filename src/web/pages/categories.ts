import { notFound } from '../../errors/errors.ts';
import { categoriesWithCounts } from '../../operations/read-models/browse.ts';
import { CATEGORY_SLUGS, categoryPage } from '../../operations/read-models/categories.ts';
import { paths } from '../../lib/paths.ts';
import { categoryLinks, categoryName, listingCard } from '../browse-components.ts';
import { siteOrigin } from '../head.ts';
import { html } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { keptForVisitors } from '../page-cache.ts';
import type { PageRoutes } from './page-routes.ts';

/**
 * `/categories`: every category with its count of live listings; `/categories/{slug}`: the
 * category's live listings, paid category placements first (marked), then by votes.
 */
export const categoryPages: PageRoutes = (router, services) => {
  router.get(
    '/categories',
    keptForVisitors(
      services,
      () => 'categories',
      async function listCategories(ctx) {
        const c = await pageContext(ctx, services);
        const categories = await categoriesWithCounts(c);
        const total = categories.reduce((n, cat) => n + cat.count, 0);
        await renderPage(ctx, services, {
          title: 'Categories',
          meta: {
            description: `Browse the live listings of ${c.site.name} by category: ${categories
              .filter((cat) => cat.count > 0)
              .map((cat) => categoryName(cat.slug))
              .join(', ')}.`,
            share: { type: 'website' },
          },
          main: html`<p>Every category of ${c.site.name} with its number of live listings${total === 0 ? '; none is live yet' : ''}. A listing can be in up to five.</p>
${categoryLinks(categories, true)}`,
        });
      },
    ),
  );

  router.get(
    '/categories/{slug}',
    keptForVisitors(
      services,
      (ctx) => `category:${ctx.params.slug}`,
      async function showCategory(ctx) {
        const slug = ctx.params.slug!;
        if (!(CATEGORY_SLUGS as readonly string[]).includes(slug)) throw notFound('The category');
        const c = await pageContext(ctx, services);
        const listings = await categoryPage(c, slug);
        const name = categoryName(slug);
        const origin = siteOrigin(c.site, services.config.baseUrl);
        await renderPage(ctx, services, {
          title: name,
          meta: {
            description: `${name} on ${c.site.name}: live listings ranked by votes${
              listings.length
                ? `, including ${listings
                    .slice(0, 3)
                    .map((l) => l.name)
                    .join(', ')}`
                : ''
            }.`,
            share: { type: 'website' },
            alternates: [{ type: 'application/atom+xml', title: `${name} launches (Atom)`, href: `/categories/${slug}/feed.xml` }],
            jsonLd: listings.length
              ? [
                  {
                    '@context': 'https://schema.org',
                    '@type': 'ItemList',
                    name: `${name} on ${c.site.name}`,
                    numberOfItems: listings.length,
                    itemListElement: listings.map((l, i) => ({
                      '@type': 'ListItem',
                      position: i + 1,
                      url: origin + paths.listing(l.slug),
                      name: l.name,
                    })),
                  },
                ]
              : [],
          },
          main: html`<p><a href="/categories">All categories</a> · <a href="/categories/${slug}/feed.xml">Feed of new ${name} listings</a></p>
${
  listings.length
    ? html`<ol class="cards">${listings.map((l) =>
        listingCard(l, {
          heading: 'h2',
          label: l.placed ? `Featured in ${name}` : undefined,
          attrs: html`data-listing="${l.id}"${l.placed ? html` data-placed="true"` : ''}`,
        }),
      )}</ol>`
    : html`<p>No live listings in this category yet. Owners choose their categories when they edit their listing.</p>`
}`,
        });
      },
    ),
  );
};
