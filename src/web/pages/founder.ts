import type { PublicFounder } from '../../domain/founders/profiles.ts';
import { notFound } from '../../errors/errors.ts';
import { founderPage } from '../../operations/read-models/founders.ts';
import { parseId } from '../../operations/schemas.ts';
import { externalLink, founderPhoto, textBlocks } from '../content.ts';
import { html } from '../html.ts';
import { pageContext } from '../invoke.ts';
import { renderPage } from '../render.ts';
import { siteOrigin } from '../head.ts';
import { SHARE_SCRIPT, shareControl } from '../share-control.ts';
import type { PageRoutes } from './page-routes.ts';

/** The public founder page: profile, this site's interview answers, stories and live listings. */
export const founderPages: PageRoutes = (router, services) => {
  router.get('/founders/{user_id}', async function showFounder(ctx) {
    const userId = parseId(ctx.params.user_id);
    // Only complete profiles have a public page (founderPage returns null otherwise).
    const founder = userId ? await founderPage(await pageContext(ctx, services), userId) : null;
    if (!founder) throw notFound('The founder');
    const c = await pageContext(ctx, services);
    const url = `${siteOrigin(c.site, services.config.baseUrl)}/founders/${founder.user_id}`;
    await renderPage(ctx, services, {
      title: founder.display_name,
      script: SHARE_SCRIPT,
      meta: {
        description: founder.bio ?? `${founder.display_name}, founder on ${(await pageContext(ctx, services)).site.name}.`,
        // A 1200×630 card like a listing's: name, bio and photo.
        share: { type: 'profile', image: `/media/founders/${founder.user_id}/card.png` },
      },
      main: html`${founderProfile(founder)}${shareControl(url, founder.display_name)}`,
    });
  });
};

function founderProfile(f: PublicFounder) {
  return html`<div class="founder">
${founderPhoto(f.photo_path, f.display_name, 160)}
<div class="bio">${textBlocks(f.bio)}</div>
</div>
<h2>Links</h2>
<ul>${f.links.map((link) => html`<li>${externalLink(link, undefined, 'me nofollow ugc noopener')}</li>`)}</ul>
${
  f.interview.length > 0 &&
  html`<h2>Interview</h2>
${f.interview.map((a) => html`<section class="answer"><h3>${a.question}</h3>${textBlocks(a.answer)}</section>`)}`
}
${
  f.stories.length > 0 &&
  html`<h2>Stories</h2>
<ul>${f.stories.map((s) => html`<li><a href="${s.path}">${s.title}</a> <span class="muted">(${s.listing_name})</span></li>`)}</ul>`
}
${
  f.listings.length > 0 &&
  html`<h2>Listings</h2>
<ul>${f.listings.map((l) => html`<li><a href="/listings/${l.slug}">${l.name}</a>${l.headline && html` — ${l.headline}`}</li>`)}</ul>`
}`;
}
