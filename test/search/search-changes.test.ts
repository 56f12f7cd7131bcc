import type { ListingStatus } from '../../src/domain/fields.ts';
import test from 'ava';
import { SEARCHED_COLUMNS } from '../../src/db/migrations/024-search-trigger-columns.ts';
import { PUBLIC_COLUMNS } from '../../src/domain/listings/listing-row.ts';
import { startTestEnv, type TestEnv } from '../helpers/env.ts';
import { insertLiveListing } from '../helpers/listings.ts';

// search_changes tells every api process's in-memory index which listings to read again: an
// update logs a change exactly when it changed a column search reads (migration 024).
let env: TestEnv;
test.before(async () => {
  env = await startTestEnv(import.meta.url);
});
test.after.always(() => env?.close());

/** Listings of `ids` with a change logged by `write` (transactions that start after this call). */
async function changesBy(ids: number[], write: () => Promise<unknown>): Promise<number[]> {
  const db = env.services.db;
  const [{ next }] = (await db.raw('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next')).rows;
  await write();
  const { rows } = await db.raw(`SELECT listing_id FROM search_changes WHERE listing_id = ANY(?) AND xid >= ?::xid8 ORDER BY listing_id`, [
    ids,
    next,
  ]);
  return rows.map((r: { listing_id: number }) => r.listing_id);
}

test('an update of columns search does not read logs no search change', async (t) => {
  const db = env.services.db;
  const a = await insertLiveListing(db, { name: 'Unread Alpha' });
  const b = await insertLiveListing(db, { name: 'Unread Beta' });
  t.deepEqual(await changesBy([a, b], () => db('listings').whereIn('id', [a, b]).update({ contact_email: 'x@example.com' })), []);
  t.deepEqual(await changesBy([a], () => db('listings').where({ id: a }).update({ plan: 'paid', updated_at: db.fn.now() })), []);
  t.deepEqual(
    await changesBy([a], () =>
      db('listings')
        .where({ id: a })
        .update({ evidence: JSON.stringify({ a: 1 }) }),
    ),
    [],
    'jsonb that search does not show',
  );
  t.deepEqual(
    await changesBy([a], () =>
      db('listings')
        .where({ id: a })
        .update({ votes: db.raw('votes') }),
    ),
    [],
    'nothing changed',
  );
});

test('an update of a column search reads logs one change per listing it changed', async (t) => {
  const db = env.services.db;
  const a = await insertLiveListing(db, { name: 'Read Alpha', votes: 1 });
  const b = await insertLiveListing(db, { name: 'Read Beta', votes: 1 });
  t.deepEqual(
    await changesBy([a, b], () => db('listings').whereIn('id', [a, b]).increment('votes', 1)),
    [a, b].sort((x, y) => x - y),
  );
  t.deepEqual(await changesBy([a, b], () => db('listings').where({ id: a }).update({ name: 'Read Gamma', updated_at: db.fn.now() })), [a]);
  t.deepEqual(
    await changesBy([a, b], () =>
      db('listings')
        .where({ id: b })
        .update({ status: 'removed' as ListingStatus }),
    ),
    [b],
  );
  t.deepEqual(await changesBy([a], () => db('listings').where({ id: a }).update({ logo_url: 'https://example.org/logo.png' })), [a]);
  t.deepEqual(
    await changesBy([a], () =>
      db('listings')
        .where({ id: a })
        .update({ facts: JSON.stringify({ founded: 2020 }) }),
    ),
    [a],
  );
  t.deepEqual(await changesBy([a], () => db('listings').where({ id: a }).increment('follower_count', 1)), [a]);
  // Only the listings whose searched columns changed, in a statement that wrote both.
  t.deepEqual(
    await changesBy([a, b], () =>
      db('listings')
        .whereIn('id', [a, b])
        .update({ headline: db.raw(`CASE WHEN id = ? THEN 'New headline' ELSE headline END`, [a]), contact_email: 'y@example.com' }),
    ),
    [a],
  );
  // Inserts and deletes are logged as before.
  const c = await insertLiveListing(db, { name: 'Read Delta' });
  t.deepEqual(await changesBy([c], () => db('listings').where({ id: c }).delete()), [c]);
});

test('the columns the trigger compares hold every public column a result shows', (t) => {
  const searched = new Set<string>(SEARCHED_COLUMNS);
  t.deepEqual(
    PUBLIC_COLUMNS.filter((c) => c !== 'id' && !searched.has(c)),
    [],
    'a new public column needs a migration adding it to the trigger',
  );
});
