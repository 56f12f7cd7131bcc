import type { PublicStory } from '../../domain/founders/public-story.ts';
import { notFound } from '../../errors/errors.ts';
import { storyPage } from '../../operations/read-models/founders.ts';
import { time } from '../components.ts';
import { founderPhoto, lines } from '../content.ts';
import { html } from '../html.ts';
import { renderPage } from '../render.ts';
import type { PageRoutes } from './page-routes.ts';

/** The public page of a published founder story; anything else is a 404. */
export const storyPages: PageRoutes = (router, services) => {
  router.get('/stories/{slug}', async function showStory(ctx) {
    const story = await storyPage(services, ctx.params.slug!);
    if (!story) throw notFound('The story');
    await renderPage(ctx, services, {
      title: story.title,
      meta: {
        description: `${story.founder?.display_name ? `${story.founder.display_name}, founder of ` : 'The founder story of '}${story.listing.name}: ${story.sections[0]?.paragraphs[0] ?? story.title}`,
        share: { type: 'article' },
      },
      main: storyArticle(story),
    });
  });
};

function storyArticle(story: PublicStory) {
  const { founder, listing } = story;
  const listingLink = listing.status === 'live' ? html`<a href="/listings/${listing.slug}">${listing.name}</a>` : html`${listing.name}`;
  const name = founder?.display_name ?? null;
  // Photo and name link to the founder page together (one link, named by the text).
  const author = founder?.page_path
    ? html`<a class="author" href="${founder.page_path}">${founderPhoto(founder.photo_path, null, 64)}<span>${name}</span></a>`
    : html`${founder && founderPhoto(founder.photo_path, name, 64)}<span>${name}</span>`;
  return html`<article class="story">
<div class="byline">
<p>${name && html`By ${author}, founder of `}${listingLink}<br>
<span class="muted">Published ${time(story.published_at)} · ${story.word_count} words</span></p>
</div>
${story.sections.map(
  (s) => html`<section aria-labelledby="story-${s.name}">
<h2 id="story-${s.name}">${s.heading}</h2>
${s.paragraphs.map((p) => html`<p>${lines(p)}</p>`)}
</section>`,
)}
</article>`;
}
