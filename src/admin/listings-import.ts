import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import { importListing } from '../domain/listings/import-listing.ts';
import { readSiteByKey } from '../domain/sites/sites.ts';
import { badRequest } from '../errors.ts';
import { parseHttpUrl } from '../urls.ts';

export const LISTINGS_IMPORT_USAGE =
  'npm run admin -- listings:import --site KEY --url URL   (crawl a website and publish it as a live listing without owner; prints id and slug)';

/** `listings:import`: seeds a site's directory with a company its owner can claim later. */
export async function listingsImport(
  db: Db,
  config: Pick<Config, 'crawl' | 'baseUrl'>,
  flags: { site?: string; url?: string },
): Promise<string> {
  if (!flags.site || !flags.url) throw badRequest('usage', `--site and --url are required.\n  ${LISTINGS_IMPORT_USAGE}`);
  const site = await readSiteByKey(db, flags.site);
  if (!site) throw badRequest('unknown_site', `There is no site with the key "${flags.site}".`);
  if (!URL.canParse(flags.url)) throw badRequest('invalid_url', `--url "${flags.url}" is not a web address.`);
  const url = parseHttpUrl(flags.url);
  if (!url) throw badRequest('invalid_url', `--url must be an http or https address (without credentials).`);
  const listing = await importListing(db, config.crawl, { siteId: site.id, url: url.href, baseUrl: config.baseUrl });
  return `imported listing ${listing.id} ${listing.slug}`;
}
