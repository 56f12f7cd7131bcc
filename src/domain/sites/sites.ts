import { TtlCache } from '../../cache/ttl-cache.ts';
import type { Db } from '../../db/knex.ts';
import { announceChange } from '../../db/notify.ts';

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
  /** When the site started (an empty feed's `updated`). */
  created_at: Date;
}

/** The sites, one cache per process (built by createServices). */
export type SitesCache = TtlCache<Site[]>;

/**
 * Sites change only by admin action: 30 s per process, or until the change notice of a console
 * change (announceSiteChange) arrives.
 */
export const createSitesCache = (): SitesCache => new TtlCache({ ttlMs: 30_000, maxEntries: 1 });

/** Tells every api process, at the commit of `db`, that a site's settings changed. */
export const announceSiteChange = (db: Db, siteId: number): Promise<void> => announceChange(db, { site: siteId, what: 'site' });

/** All sites, through the process's cache. */
export function listSites(db: Db, cache: SitesCache): Promise<Site[]> {
  return cache.get('all', () => readSites(db));
}

/** All sites from the table, uncached: admin commands and rare steps (a week's close, a re-pricing) read them fresh. */
export function readSites(db: Db): Promise<Site[]> {
  return db('sites').select('id', 'key', 'name', 'host', 'is_default', 'settings', 'created_at').orderBy('id');
}

/** A site by key from the table (uncached, see readSites), or undefined. */
export async function readSiteByKey(db: Db, key: string): Promise<Site | undefined> {
  return (await readSites(db)).find((s) => s.key === key);
}

/** The site whose host the request came to, else the default site. */
export async function siteForHost(db: Db, cache: SitesCache, host: string): Promise<Site> {
  const sites = await listSites(db, cache);
  const hostname = host.replace(/:\d+$/, '').toLowerCase();
  const site = sites.find((s) => s.host === hostname) ?? sites.find((s) => s.is_default);
  if (!site) throw new Error('no default site: run the seed');
  return site;
}

/** A site by key, or undefined. */
export async function siteByKey(db: Db, cache: SitesCache, key: string): Promise<Site | undefined> {
  return (await listSites(db, cache)).find((s) => s.key === key);
}
