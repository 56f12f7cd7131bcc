/**
 * `npm run fuzz` helper: gives the fuzz account something to work on, so that schemathesis reaches
 * the handlers behind `/me/listings/{listing_id}` instead of stopping at 404. Inserts one live
 * listing owned by the account (email in argv[2]) into the database of the service the script
 * started (same environment as `npm start`) and prints schemathesis.toml `[parameters]` lines.
 */
import { userByEmail } from '../src/auth/users.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/knex.ts';
import { endpointsFor } from '../src/embedded/stack.ts';
import { insertListing } from '../src/domain/listings/listings.ts';
import { isoWeekStart } from '../src/domain/ranking/weeks.ts';

const db = createDb(endpointsFor(loadConfig()).databaseUrl, 1);
try {
  const owner = await userByEmail(db, process.argv[2]!);
  const site = await db('sites').where({ key: 'main' }).first('id');
  const id = await insertListing(db, {
    site_id: site.id,
    owner_id: owner.id,
    name: 'Fuzz Target',
    url: 'https://fuzz-target.example.com/',
    headline: 'A listing the fuzzer may edit',
    summary: null,
    seo_title: null,
    seo_description: null,
    logo_url: null,
    image_url: null,
    contact_email: null,
    facts: {},
    socials: {},
    faqs: [],
    categories: [],
    evidence: {},
  });
  await db('listings')
    .where({ id })
    .update({ status: 'live', launch_week: isoWeekStart(new Date()), live_at: db.fn.now() });
  const { slug } = await db('listings').where({ id }).first('slug');
  console.log(`"path.listing_id" = ${id}\n"path.slug" = ${JSON.stringify(slug)}`);
} finally {
  await db.destroy();
}
