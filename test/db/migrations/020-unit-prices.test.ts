import test from 'ava';
import { createUser } from '../../../src/auth/users.ts';
import { createDb, migrate, type Db } from '../../../src/db/knex.ts';
import { migrationSource } from '../../../src/db/migrations/index.ts';
import { createTestDatabase } from '../../helpers/env.ts';
import { insertLiveListing } from '../../helpers/listings.ts';

// Orders bought before prices were per unit: migration 020 on a database that has them.

let db: Db;
test.before(async () => {
  db = createDb(await createTestDatabase(), 2);
  // The template is migrated to the latest: step back to before 020 to write lines as they were.
  await db.migrate.down({ migrationSource, name: '020-unit-prices' });
});
test.after.always(() => db?.destroy());

test('old lines become one unit at their price, with the listing’s name; untouched seeded prices follow the new seed', async (t) => {
  const user = await createUser(db, 'before-020@example.com');
  const listingId = await insertLiveListing(db, { name: 'Old Order Co', ownerId: user.id });
  const site = await db('sites').where({ key: 'main' }).first('id');
  const [order] = await db('orders')
    .insert({
      site_id: site!.id,
      user_id: user.id,
      number: 'LD-OLD2-0200',
      checkout_token: 'old-token-020',
      quote: '{}',
      billing: { name: null, country: 'US', vat_number: null },
      total_cents: 9900,
      expires_at: new Date(Date.now() + 3_600_000),
    })
    .returning('id');
  await db<Record<string, unknown>>('order_lines').insert({
    order_id: order.id,
    position: 0,
    product: 'featured',
    listing_id: listingId,
    options: { weeks: 4 },
    unit_cents: 9900,
    discount_cents: 0,
    net_cents: 9900,
    vat_cents: 0,
  });
  await db('products').where({ site_id: site!.id, key: 'billboard' }).update({ price_cents: 1900 });
  await db('products').whereNot({ site_id: site!.id }).where({ key: 'billboard' }).update({ price_cents: 2500 });

  t.deepEqual(await migrate(db), ['020-unit-prices']);
  const line = await db('order_lines').where({ order_id: order.id }).first();
  // What was paid stays what was paid: 4 weeks bought for a flat 99 read as 1 unit of 99.
  t.like(line, {
    unit: 'item',
    quantity: 1,
    unit_price_cents: 9900,
    amount_cents: 9900,
    net_cents: 9900,
    listing_name: 'Old Order Co',
  });
  t.false('unit_cents' in line!);
  t.is((await db('products').where({ site_id: site!.id, key: 'billboard' }).first())!.price_cents, 1500);
  t.is(
    (await db('products').whereNot({ site_id: site!.id }).where({ key: 'billboard' }).first())!.price_cents,
    2500,
    'an admin’s price stays',
  );
  // A line whose amount is not quantity × unit price cannot be written.
  await t.throwsAsync(db('order_lines').where({ id: line!.id }).update({ quantity: 2 }), { message: /order_lines_amount/ });
});
