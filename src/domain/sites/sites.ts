import { cacheOf } from '../../cache/ttl-cache.ts';
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

/** All sites, cached for 30 s per process (sites change only by admin action). */
export function listSites(db: Db): Promise<Site[]> {
  return cacheOf<Site[]>(db, 'sites', { ttlMs: 30_000, maxEntries: 1 }).get('all', () =>
    db('sites').select('id', 'key', 'name', 'host', 'is_default', 'settings').orderBy('id'),
  );
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
