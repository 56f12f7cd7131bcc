import type { Knex } from 'knex';

/**
 * Claims: someone proves they own a listed company by a DNS record, a meta tag, a file
 * or an emailed link. Every check is a row of `claim_checks`; emailed links are `claim_email_links`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('claims', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('method').notNullable();
    t.text('email');
    // Published by the claimant (DNS, page, file), so kept as it is; ≥ 128 bits of randomness.
    t.text('token').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('closed_at', { useTz: true });
    // verify_claim is refused within the minimum interval after the last one (rate limit per claim).
    t.timestamp('last_requested_check_at', { useTz: true });
    // Set on claims canceled because another claim on the listing was verified.
    t.integer('canceled_by_claim_id').references('claims.id').onDelete('SET NULL');
    t.index(['user_id', 'id']);
    t.index(['listing_id', 'status']);
  });
  await db.raw(`ALTER TABLE claims ADD CONSTRAINT claims_method CHECK (method IN ('dns', 'meta', 'file', 'email'))`);
  await db.raw(`ALTER TABLE claims ADD CONSTRAINT claims_status CHECK (status IN ('pending', 'verified', 'expired', 'canceled'))`);
  await db.raw(`ALTER TABLE claims ADD CONSTRAINT claims_email CHECK ((method = 'email') = (email IS NOT NULL))`);
  // One pending claim per account and listing: a second claim_listing returns the first.
  await db.raw(`CREATE UNIQUE INDEX claims_one_pending ON claims (listing_id, user_id) WHERE status = 'pending'`);

  await db.schema.createTable('claim_checks', (t) => {
    t.increments('id');
    t.integer('claim_id').notNullable().references('claims.id').onDelete('CASCADE');
    // schedule (the workflow's own retries), request (verify_claim, Check now, claims:recheck), email_link
    t.text('trigger').notNullable();
    t.text('result').notNullable();
    t.text('detail').notNullable();
    t.timestamp('checked_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['claim_id', 'id']);
  });
  await db.raw(`ALTER TABLE claim_checks ADD CONSTRAINT claim_checks_result CHECK (result IN ('found', 'not_found', 'error'))`);

  await db.schema.createTable('claim_email_links', (t) => {
    t.increments('id');
    t.integer('claim_id').notNullable().references('claims.id').onDelete('CASCADE');
    // SHA-256 of the link's token: a database leak does not verify anyone's claim.
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['claim_id']);
  });

  // The previous owner of a claimed listing is told in the app too: notifications of kind listing_claimed
  // (with listing_id, title and body like every note about one's own listing).
  await db.schema.alterTable('notifications', (t) => {
    t.integer('claim_id').references('claims.id').onDelete('CASCADE');
    t.unique(['user_id', 'claim_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db('notifications').where({ kind: 'listing_claimed' }).delete();
  await db.schema.alterTable('notifications', (t) => {
    t.dropUnique(['user_id', 'claim_id']);
    t.dropColumn('claim_id');
  });
  await db.schema.dropTableIfExists('claim_email_links');
  await db.schema.dropTableIfExists('claim_checks');
  await db.schema.dropTableIfExists('claims');
}
