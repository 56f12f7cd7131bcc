import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { notFound } from '../../errors/errors.ts';
import { sitemapOf } from '../../operations/read-models/browse.ts';
import { siteShareImage } from '../../operations/read-models/media.ts';
import { brandPng, FAVICON_SVG, type BrandImage } from '../brand-images.ts';
import { compress, sendCompressed } from '../compressed.ts';
import { siteOrigin } from '../head.ts';
import { keptForVisitors } from '../page-cache.ts';
import { pageContext } from '../invoke.ts';
import { sitemapFileCount, sitemapFilePath, sitemapIndex, urlset } from '../sitemap-xml.ts';
import type { WebServices } from '../web-services.ts';
import type { PageRoutes } from './page-routes.ts';

/** The site's images never change within a release: a day in caches, revalidated by ETag. */
const IMAGE_CACHE = 'public, max-age=86400';

/**
 * What search engines and browsers ask for besides pages: `/robots.txt` (naming the sitemap),
 * `/sitemap.xml` (a `<urlset>`, or an index of `/sitemaps/{n}.xml` beyond SITEMAP_URLS_PER_FILE
 * URLs), the favicon and the site's default share image.
 */
export const seoPages: PageRoutes = (router, services) => {
  router.get('/robots.txt', async function robots(ctx) {
    const { site } = await pageContext(ctx, services);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = `User-agent: *\nDisallow: /account/\nDisallow: /api/\nDisallow: /dev/\nAllow: /\n\nSitemap: ${siteOrigin(site, services.config.baseUrl)}/sitemap.xml\n`;
  });

  // Kept whole for visitors like the pages (src/web/page-cache.ts): crawlers ask for it often.
  router.get(
    '/sitemap.xml',
    keptForVisitors(
      services,
      () => 'sitemap:0',
      async function sitemap(ctx) {
        await sendSitemap(ctx, services, null);
      },
    ),
  );

  router.get(
    '/sitemaps/{file}',
    keptForVisitors(
      services,
      (ctx) => `sitemap:${ctx.params.file}`,
      async function sitemapFile(ctx) {
        const n = /^([1-9]\d{0,5})\.xml$/.exec(ctx.params.file!)?.[1];
        if (!n) throw notFound('The sitemap file');
        await sendSitemap(ctx, services, Number(n));
      },
    ),
  );

  const image = (path: string, name: BrandImage) =>
    router.get(path, async function brandImage(ctx) {
      sendImage(ctx, 'image/png', await brandPng(name));
    });
  image('/favicon.ico', 'favicon-32');
  image('/favicon.png', 'favicon-32');
  image('/apple-touch-icon.png', 'favicon-180');
  // The default share image names the site the page is on.
  router.get('/share/default.png', async function siteShareCard(ctx) {
    const c = await pageContext(ctx, services);
    sendImage(ctx, 'image/png', await siteShareImage(c, siteOrigin(c.site, services.config.baseUrl), FAVICON_SVG));
  });
  router.get('/favicon.svg', function faviconSvg(ctx) {
    sendImage(ctx, 'image/svg+xml', Buffer.from(FAVICON_SVG));
  });
};

/** `/sitemap.xml` (file null) or one file of the index; a file beyond the index is a 404. */
async function sendSitemap(ctx: Context, services: WebServices, file: number | null): Promise<void> {
  const c = await pageContext(ctx, services);
  const perFile = services.config.sitemapUrlsPerFile;
  const origin = siteOrigin(c.site, services.config.baseUrl);
  const key = `${c.site.id}:${file ?? 0}`;
  const doc = await c.caches.browse.sitemapFiles.get(key, async () => {
    const entries = await sitemapOf(c);
    const count = sitemapFileCount(entries.length, perFile);
    let text: string;
    if (file === null) text = count === 1 ? await urlset(origin, entries) : await sitemapIndex(origin, entries, perFile);
    else if (count === 1 || file > count) return null;
    else text = await urlset(origin, entries.slice((file - 1) * perFile, file * perFile));
    return compress(text);
  });
  if (doc === null) throw notFound(`The sitemap file ${sitemapFilePath(file!)}`);
  ctx.type = 'application/xml; charset=utf-8';
  ctx.set('Cache-Control', 'public, max-age=300');
  sendCompressed(ctx, doc);
}

function sendImage(ctx: Context, type: string, body: Buffer): void {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  ctx.set('Cache-Control', IMAGE_CACHE);
  ctx.set('ETag', etag);
  // Compared by hand: a request that says `Cache-Control: no-cache` still revalidates by ETag.
  if (
    ctx
      .get('If-None-Match')
      .split(',')
      .some((t) => t.trim() === etag)
  ) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = body;
}
