import type { Feed, Item } from 'feed';
import type { Context } from 'koa';
import { notFound } from '../../errors/errors.ts';
import { CATEGORY_SLUGS } from '../../operations/read-models/categories.ts';
import { latestClosedWeeks, weekArchivePath } from '../../operations/read-models/archive.ts';
import { comingLaunches, launchedListings, siteUpdates, type LaunchedListing } from '../../operations/read-models/browse.ts';
import { dayText, launchWeekEnd } from '../../operations/read-models/launches.ts';
import type { OperationContext } from '../../operations/operation.ts';
import { paths } from '../../lib/paths.ts';
import { categoryName } from '../browse-components.ts';
import { feedPackage } from '../feed-package.ts';
import { siteOrigin } from '../head.ts';
import { html } from '../html.ts';
import { icalGenerator } from '../ical-generator.ts';
import { pageContext } from '../invoke.ts';
import { listingShareImage } from '../share-image.ts';
import { textBlocks } from '../content.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

const PLACES = ['', '1st', '2nd', '3rd'];

/** Items per feed. */
const FEED_ITEMS = 50;
/** Weeks ahead the calendar covers (as list_launch_weeks shows them). */
const CALENDAR_WEEKS = 12;

/**
 * Feeds of the request's site, made with the `feed` and `ical-generator` packages:
 * `/feeds/launches.xml` (Atom) and `/feeds/launches.json` (JSON Feed) of listings as they go
 * live, `/feeds/updates.xml` of owners' updates, `/categories/{slug}/feed.xml` of one category's
 * launches, `/feeds/weeks.xml` of closed weeks (their lasting pages and top three), and
 * `/launches.ics`, one all-day event per scheduled launch on its Monday.
 */
export const feedPages: PageRoutes = (router, services) => {
  router.get('/feeds/launches.xml', async function launchesAtom(ctx) {
    await send(ctx, services, 'application/atom+xml; charset=utf-8', 'launches.xml', async (c, origin) =>
      atomImageTypes((await launchesFeed(c, origin, await launchedListings(c, FEED_ITEMS), 'atom')).atom1()),
    );
  });
  router.get('/feeds/launches.json', async function launchesJson(ctx) {
    await send(ctx, services, 'application/feed+json; charset=utf-8', 'launches.json', async (c, origin) =>
      (await launchesFeed(c, origin, await launchedListings(c, FEED_ITEMS), 'json')).json1(),
    );
  });
  router.get('/categories/{slug}/feed.xml', async function categoryAtom(ctx) {
    const slug = ctx.params.slug!;
    if (!(CATEGORY_SLUGS as readonly string[]).includes(slug)) throw notFound('The category');
    await send(ctx, services, 'application/atom+xml; charset=utf-8', `category:${slug}`, async (c, origin) =>
      atomImageTypes((await launchesFeed(c, origin, await launchedListings(c, FEED_ITEMS, slug), 'atom', slug)).atom1()),
    );
  });
  router.get('/feeds/updates.xml', async function updatesAtom(ctx) {
    await send(ctx, services, 'application/atom+xml; charset=utf-8', 'updates.xml', async (c, origin) => {
      const { Feed } = await feedPackage();
      const feed = new Feed({
        id: `${origin}/updates`,
        title: `Latest updates on ${c.site.name}`,
        description: `What the makers on ${c.site.name} shipped lately.`,
        link: `${origin}/updates`,
        feedLinks: { atom: `${origin}/feeds/updates.xml` },
        favicon: `${origin}/favicon.png`,
        copyright: c.site.name,
        generator: c.site.name,
        author: siteAuthor(c, origin),
      });
      const updates = await siteUpdates(c, FEED_ITEMS);
      feed.options.updated = updates[0]?.published_at ?? c.site.created_at;
      for (const u of updates) {
        feed.addItem({
          id: `${origin}${paths.listing(u.listing.slug)}#update-${u.id}`,
          title: atomText(`${u.listing.name}: ${u.title}`),
          link: `${origin}${paths.listing(u.listing.slug)}#update-${u.id}`,
          content: textBlocks(u.body).value,
          date: u.published_at,
          published: u.published_at,
          author: [{ name: u.listing.name, link: `${origin}${paths.listing(u.listing.slug)}` }],
        });
      }
      return feed.atom1();
    });
  });
  router.get('/feeds/weeks.xml', async function weeksAtom(ctx) {
    await send(ctx, services, 'application/atom+xml; charset=utf-8', 'weeks.xml', async (c, origin) => {
      const { Feed } = await feedPackage();
      const weeks = await latestClosedWeeks(c, FEED_ITEMS);
      const feed = new Feed({
        id: `${origin}/best`,
        title: `Weekly results on ${c.site.name}`,
        description: `The final ranking of each week on ${c.site.name}, as each week closes.`,
        link: `${origin}/best`,
        feedLinks: { atom: `${origin}/feeds/weeks.xml` },
        favicon: `${origin}/favicon.png`,
        copyright: c.site.name,
        generator: c.site.name,
        author: siteAuthor(c, origin),
        updated: weeks[0] ? launchWeekEnd(weeks[0].week_start) : c.site.created_at,
      });
      for (const w of weeks) {
        const link = origin + weekArchivePath(w.week_start);
        const top = w.top.map((p) => `${PLACES[p.rank]} ${p.name}`).join(', ');
        feed.addItem({
          id: link,
          title: atomText(`Week of ${dayText(w.week_start)}${top ? `: ${top}` : ''}`),
          link,
          content:
            html`<ol>${w.top.map((p) => html`<li><a href="${origin}${paths.listing(p.slug)}">${p.name}</a>${p.headline ? html` — ${p.headline}` : ''} (${p.score} votes)</li>`)}</ol>`
              .value,
          date: launchWeekEnd(w.week_start),
          published: launchWeekEnd(w.week_start),
        });
      }
      return feed.atom1();
    });
  });
  router.get('/launches.ics', async function launchCalendar(ctx) {
    await send(ctx, services, 'text/calendar; charset=utf-8', 'launches.ics', async (c, origin) => {
      const { default: ical } = await icalGenerator();
      const calendar = ical({ name: `Coming launches on ${c.site.name}`, prodId: { company: c.site.name, product: 'launches' } });
      for (const l of await comingLaunches(c, CALENDAR_WEEKS)) {
        calendar.createEvent({
          id: `launch-${l.id}-${l.week_start}@${new URL(origin).hostname}`,
          start: new Date(`${l.week_start}T00:00:00Z`),
          allDay: true,
          summary: `${l.name} launches`,
          description: l.headline ?? undefined,
          url: `${origin}${paths.listing(l.slug)}`,
        });
      }
      return withComponent(calendar.toString());
    });
  });
};

/**
 * Atom's titles and summaries are `type="html"` inside CDATA: they are given as escaped HTML, so a
 * name reads as the same text in a reader and no `]]>` in it can end the CDATA section (the XML
 * writer under `feed` splits only the first one). JSON Feed's are plain text.
 */
const atomText = (text: string) => html`${text}`.value;

type FeedFormat = 'atom' | 'json';

/** A feed of launched listings (one category's when `category` is given). */
async function launchesFeed(
  c: OperationContext,
  origin: string,
  listings: LaunchedListing[],
  format: FeedFormat,
  category?: string,
): Promise<Feed> {
  const { Feed } = await feedPackage();
  const self = category ? `${origin}/categories/${category}/feed.xml` : `${origin}/feeds/launches.xml`;
  const page = category ? `${origin}/categories/${category}` : `${origin}/launches`;
  const feed = new Feed({
    id: page,
    title: category ? `${categoryName(category)} launches on ${c.site.name}` : `New launches on ${c.site.name}`,
    description: category
      ? `Listings in ${categoryName(category)} as they go live on ${c.site.name}.`
      : `Listings as they go live on ${c.site.name}.`,
    link: page,
    feedLinks: category ? { atom: self } : { atom: self, json: `${origin}/feeds/launches.json` },
    favicon: `${origin}/favicon.png`,
    copyright: c.site.name,
    generator: c.site.name,
    author: siteAuthor(c, origin),
    updated: listings[0]?.live_at ?? c.site.created_at,
  });
  for (const l of listings) feed.addItem(launchItem(origin, l, format));
  return feed;
}

/** Atom needs an author for the feed (or every entry): the site, at its front page. */
const siteAuthor = (c: OperationContext, origin: string) => ({ name: c.site.name, link: `${origin}/` });

/** Our images' types by extension; an image of another kind is left out of the feed rather than mistyped. */
const IMAGE_TYPES: Record<string, string> = { jpg: 'jpeg', jpeg: 'jpeg', png: 'png', webp: 'webp', gif: 'gif', avif: 'avif' };

/**
 * The `feed` package types an enclosure `image/<extension>`, so a `.jpg` would be `image/jpg`, which
 * is no MIME type: the Atom documents say `image/jpeg` instead.
 */
const atomImageTypes = (atom: string) => atom.replaceAll('type="image/jpg"', 'type="image/jpeg"');

/**
 * RFC 5545 wants at least one component in a calendar: with no launch scheduled, an empty one is
 * invalid. UTC's time zone is a harmless one that every reader accepts.
 */
function withComponent(ics: string): string {
  if (ics.includes('BEGIN:VEVENT')) return ics;
  const utc = [
    'BEGIN:VTIMEZONE',
    'TZID:UTC',
    'BEGIN:STANDARD',
    'DTSTART:19700101T000000',
    'TZOFFSETFROM:+0000',
    'TZOFFSETTO:+0000',
    'TZNAME:UTC',
    'END:STANDARD',
    'END:VTIMEZONE',
  ];
  return ics.replace('END:VCALENDAR', `${utc.join('\r\n')}\r\nEND:VCALENDAR`);
}

function launchItem(origin: string, l: LaunchedListing, format: FeedFormat): Item {
  const link = `${origin}${paths.listing(l.slug)}`;
  const image = listingShareImage(l);
  const typed = (URL.parse(image, origin)?.pathname.split('.').pop() ?? '').toLowerCase() in IMAGE_TYPES;
  const text = format === 'atom' ? atomText : (value: string) => value;
  return {
    id: link,
    title: text(l.name),
    link,
    description: l.headline ? text(l.headline) : undefined,
    content: html`${l.headline && html`<p>${l.headline}</p>`}${textBlocks(l.summary)}`.value || undefined,
    date: l.updated_at > l.live_at ? l.updated_at : l.live_at,
    published: l.live_at,
    image: typed ? (image.startsWith('/') ? origin + image : image) : undefined,
    category: l.categories.map((slug) => ({ name: categoryName(slug), term: slug })),
  };
}

/** Renders (or reuses, for the browse cache's TTL) the site's document `name` and sends it. */
async function send(
  ctx: Context,
  services: WebServices,
  type: string,
  name: string,
  render: (c: OperationContext, origin: string) => Promise<string>,
): Promise<void> {
  const c = await pageContext(ctx, services);
  const origin = siteOrigin(c.site, services.config.baseUrl);
  const body = await c.caches.browse.documents.get(`feed:${c.site.id}:${name}`, () => render(c, origin));
  ctx.type = type;
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.body = body;
}
