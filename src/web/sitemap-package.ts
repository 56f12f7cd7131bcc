type SitemapPackage = typeof import('sitemap');

let sitemap: Promise<SitemapPackage> | undefined;

/**
 * The `sitemap` package, imported at the first sitemap request: importing it costs about 25 ms of
 * CPU, which every process that builds the app (each test file is one) would pay at startup, though
 * only `/sitemap.xml` and `/sitemaps/{n}.xml` (sitemap-xml.ts) write one. The one place that loads
 * it; the other modules import only its types.
 */
export function sitemapPackage(): Promise<SitemapPackage> {
  return (sitemap ??= import('sitemap'));
}
