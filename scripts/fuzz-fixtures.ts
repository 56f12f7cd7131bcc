/**
 * `npm run fuzz` helper: gives the fuzz account something to work on, so that schemathesis reaches
 * the handlers behind `/me/listings/{listing_id}` instead of stopping at 404. Inserts one live
 * listing owned by the account (email in argv[2]) into the database of the service the script
 * started (same environment as `npm start`) and prints schemathesis.toml `[parameters]` lines.
 */
import { userByEmail } from '../src/auth/users.ts';
import { loadConfig } from '../src/config/config.ts';
import { createDb } from '../src/db/knex.ts';
import { endpointsFor } from '../src/embedded/stack.ts';
import { insertLiveListing } from '../test/helpers/listings.ts';

const db = createDb(endpointsFor(loadConfig()).databaseUrl, 1);
try {
  const owner = await userByEmail(db, process.argv[2]!);
  const id = await insertLiveListing(db, {
    ownerId: owner.id,
    name: 'Fuzz Target',
    url: 'https://fuzz-target.example.com/',
    headline: 'A listing the fuzzer may edit',
  });
  const { slug } = (await db('listings').where({ id }).first('slug'))!;
  console.log(`"path.listing_id" = ${id}\n"path.slug" = ${JSON.stringify(slug)}`);
} finally {
  await db.destroy();
}
