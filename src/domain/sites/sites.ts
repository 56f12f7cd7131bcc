import type { Db } from '../../db/knex.ts';

export interface SiteSettings {
  seller_country: string;
  free_queue_weeks: number;
  billboard_min_days: number;
}

export interface Site {
  id: number;
  key: string;
  name: string;
  host: string | null;
  is_default: boolean;
  settings: SiteSettings;
}

const CACHE_MS = 30_000;
let cache: { db: Db; at: number; sites: Site[] } | null = null;

/** All sites, cached for 30 s per process (sites change only by admin action). */
export async function listSites(db: Db): Promise<Site[]> {
  if (cache && cache.db === db && Date.now() - cache.at < CACHE_MS) return cache.sites;
  const sites: Site[] = await db('sites').select('id', 'key', 'name', 'host', 'is_default', 'settings').orderBy('id');
  cache = { db, at: Date.now(), sites };
  return sites;
}

/** The site whose host the request came to, else the default site. */
export async function siteForHost(db: Db, host: string): Promise<Site> {
  const sites = await listSites(db);
  const hostname = host.replace(/:\d+$/, '').toLowerCase();
  const site = sites.find((s) => s.host === hostname) ?? sites.find((s) => s.is_default);
  if (!site) throw new Error('no default site: run the seed');
  return site;
}

/** A site by key, or undefined. */
export async function siteByKey(db: Db, key: string): Promise<Site | undefined> {
  return (await listSites(db)).find((s) => s.key === key);
}
