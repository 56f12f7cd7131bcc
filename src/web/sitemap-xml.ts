import { Readable } from 'node:stream';
import type { SitemapEntry } from '../operations/read-models/browse.ts';
import { sitemapPackage } from './sitemap-package.ts';

/**
 * The sitemap documents of a site (sitemaps.org protocol): one `<urlset>` while every URL fits
 * in one file, else `/sitemap.xml` is a `<sitemapindex>` of `/sitemaps/{n}.xml`, `perFile` URLs each.
 */

/** How many sitemap files the entries need. */
export const sitemapFileCount = (entries: number, perFile: number) => Math.max(1, Math.ceil(entries / perFile));

/** The path of the n-th (1-based) file of an index. */
export const sitemapFilePath = (n: number) => `/sitemaps/${n}.xml`;

/** The `<urlset>` of entries (absolute URLs on `origin`). */
export async function urlset(origin: string, entries: SitemapEntry[]): Promise<string> {
  const { SitemapStream, streamToPromise } = await sitemapPackage();
  const stream = new SitemapStream({ hostname: origin, xmlns: { news: false, video: false, image: false, xhtml: false } });
  const items = entries.map((e) => ({ url: origin + e.path, ...(e.lastmod ? { lastmod: e.lastmod.toISOString() } : {}) }));
  return (await streamToPromise(Readable.from(items).pipe(stream))).toString();
}

/** The `<sitemapindex>` of `count` files; each file's lastmod is the newest of its entries. */
export async function sitemapIndex(origin: string, entries: SitemapEntry[], perFile: number): Promise<string> {
  const { SitemapIndexStream, streamToPromise } = await sitemapPackage();
  const count = sitemapFileCount(entries.length, perFile);
  const files = Array.from({ length: count }, (_, i) => {
    const newest = entries
      .slice(i * perFile, (i + 1) * perFile)
      .reduce<Date | null>((a, e) => (e.lastmod && (!a || e.lastmod > a) ? e.lastmod : a), null);
    return { url: origin + sitemapFilePath(i + 1), ...(newest ? { lastmod: newest.toISOString() } : {}) };
  });
  return (await streamToPromise(Readable.from(files).pipe(new SitemapIndexStream()))).toString();
}
