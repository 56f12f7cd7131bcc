import type { z } from 'zod';
import type { PublicListingView } from '../operations/listing-edit-schemas.ts';
import type { Maker, PublishedUpdate } from '../operations/read-models/browse.ts';
import { paths } from '../lib/paths.ts';
import { categoryName, categoryPath, listingLogo, mediaPath } from './browse-components.ts';
import { time } from './components.ts';
import { founderPhoto, textBlocks } from './content.ts';
import type { PageMeta } from './head.ts';
import { html, type SafeHtml } from './html.ts';
import { listingShareImage } from './share-image.ts';

/** The parts of the listing page added for browsing and sharing: head, facts, makers, updates, its meta. */

type Listing = z.output<typeof PublicListingView>;

/**
 * Logo and headline side by side, then the preview image (ours only: served from /media). The
 * preview is the page's largest paint on a phone, so the browser is told to fetch it first.
 */
export function listingHead(l: Listing): SafeHtml {
  return html`<div class="listing-head">${listingLogo(l, 96)}${l.headline && html`<p class="lead">${l.headline}</p>`}</div>
${mediaPath(l.image_url) && html`<img class="preview" src="${mediaPath(l.image_url)!}" width="1200" height="630" alt="Preview of ${l.name}" fetchpriority="high">`}`;
}

/** The company facts the listing has, and its categories as links. */
export function factItems(l: Listing): SafeHtml {
  const f = l.facts;
  return html`${f.legal_name && html`<li>Company: ${f.legal_name}</li>`}${f.founded_year && html`<li>Founded: ${f.founded_year}</li>`}${
    f.location && html`<li>Based in: ${f.location}</li>`
  }${f.employees && html`<li>Team: ${f.employees}</li>`}${f.founders && f.founders.length > 0 && html`<li>Founders: ${f.founders.join(', ')}</li>`}${
    l.categories.length > 0 &&
    html`<li>Categories: ${l.categories.map((slug, i) => html`${i > 0 && ', '}<a href="${categoryPath(slug)}">${categoryName(slug)}</a>`)}</li>`
  }`;
}

/** The makers (the owner's complete founder profile): photo and name, linking to the founder page. */
export function makersSection(makers: Maker[]): SafeHtml {
  if (makers.length === 0) return html``;
  return html`<section aria-labelledby="makers"><h2 id="makers">Makers</h2>
<ul class="makers">${makers.map((m) => html`<li><a href="${m.page_path}">${founderPhoto(m.photo_path, null, 48)}<span>${m.display_name}</span></a></li>`)}</ul>
</section>`;
}

/** The listing's latest updates, newest first. */
export function updatesSection(updates: PublishedUpdate[]): SafeHtml {
  if (updates.length === 0) return html``;
  return html`<section aria-labelledby="latest-updates"><h2 id="latest-updates">Latest updates</h2>
${updates.map(
  (u) => html`<article class="update" id="update-${u.id}" aria-labelledby="update-title-${u.id}">
<h3 id="update-title-${u.id}">${u.title}</h3>
<p class="muted">${time(u.published_at.toISOString())}</p>
${textBlocks(u.body)}
</article>`,
)}
<p><a href="/updates">All makers’ updates</a></p>
</section>`;
}

/** The listing page's description, link preview and JSON-LD (SoftwareApplication and BreadcrumbList). */
export function listingMeta(l: Listing, origin: string, siteName: string): PageMeta {
  const url = origin + paths.listing(l.slug);
  const image = listingShareImage(l);
  const description = l.seo_description ?? l.headline ?? l.summary ?? `${l.name} on ${siteName}.`;
  const sameAs = Object.values(l.socials);
  return {
    description,
    canonical: paths.listing(l.slug),
    share: { type: 'website', image },
    jsonLd: [
      {
        '@context': 'https://schema.org',
        '@type': 'SoftwareApplication',
        name: l.name,
        url,
        ...(l.headline || l.summary ? { description: l.headline ?? l.summary } : {}),
        applicationCategory: l.categories[0] ? categoryName(l.categories[0]) : 'BusinessApplication',
        operatingSystem: 'Web',
        image: image.startsWith('/') ? origin + image : image,
        sameAs: [l.url, ...sameAs],
        publisher: {
          '@type': 'Organization',
          name: l.facts.legal_name ?? l.name,
          url: l.url,
          ...(l.logo_url ? { logo: l.logo_url.startsWith('/') ? origin + l.logo_url : l.logo_url } : {}),
          ...(l.facts.founded_year ? { foundingDate: String(l.facts.founded_year) } : {}),
        },
      },
      {
        '@context': 'https://schema.org',
        '@type': 'BreadcrumbList',
        itemListElement: [
          { '@type': 'ListItem', position: 1, name: siteName, item: `${origin}/` },
          ...(l.categories[0]
            ? [{ '@type': 'ListItem', position: 2, name: categoryName(l.categories[0]), item: origin + categoryPath(l.categories[0]) }]
            : []),
          { '@type': 'ListItem', position: l.categories[0] ? 3 : 2, name: l.name, item: url },
        ],
      },
    ],
  };
}
