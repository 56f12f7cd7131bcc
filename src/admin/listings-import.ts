import type { Db } from '../db/knex.ts';
import type { WorkflowStarter } from '../domain/ports.ts';
import { readSiteByKey } from '../domain/sites/sites.ts';
import { badRequest } from '../errors/errors.ts';
import { parseHttpUrl } from '../lib/urls.ts';

export const LISTINGS_IMPORT_USAGE =
  'npm run admin -- listings:import --site KEY --url URL   (crawls the website on the worker, workflow import:{site}:{domain}, and publishes it as a live listing without owner; prints id and slug)';

/** `listings:import`: runs `import:{site}:{domain}` on the worker and waits for it; seeds a site's directory with a company its owner can claim later. */
export async function listingsImport(
  db: Db,
  workflows: Pick<WorkflowStarter, 'importListing'>,
  flags: { site?: string; url?: string },
): Promise<string> {
  if (!flags.site || !flags.url) throw badRequest('usage', `--site and --url are required.\n  ${LISTINGS_IMPORT_USAGE}`);
  const site = await readSiteByKey(db, flags.site);
  if (!site) throw badRequest('unknown_site', `There is no site with the key "${flags.site}".`);
  if (!URL.canParse(flags.url)) throw badRequest('invalid_url', `--url "${flags.url}" is not a web address.`);
  const url = parseHttpUrl(flags.url);
  if (!url) throw badRequest('invalid_url', `--url must be an http or https address (without credentials).`);
  // The worker crawls (with the service's crawl settings) and publishes; this waits for its result.
  const listing = await workflows.importListing({ siteId: site.id, siteKey: site.key, url: url.href });
  return `imported listing ${listing.id} ${listing.slug}`;
}
