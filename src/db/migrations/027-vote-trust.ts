import type { Knex } from 'knex';

/**
 * Trust in the ranking: the signals kept with each vote for 30 days, their per-listing
 * aggregates afterwards, the detectors' flags (a flagged vote is discounted: kept, counting 0),
 * and the hourly count of Vote buttons shown, the traffic the burst detector compares votes with.
 */
export async function up(db: Knex): Promise<void> {
  // Why a vote counts 0 (a detector's reason code), or null when it counts.
  await db.raw('ALTER TABLE votes ADD COLUMN discount_reason text');

  await db.schema.alterTable('weekly_results', (t) => t.integer('votes_discounted').notNullable().defaultTo(0));

  await db.schema.createTable('vote_signals', (t) => {
    t.integer('listing_id').notNullable();
    t.integer('user_id').notNullable();
    t.timestamp('voted_at', { useTz: true }).notNullable();
    // Seconds from the account's creation to the vote, and how its address was confirmed.
    t.integer('account_age_s').notNullable();
    t.text('confirmed_by').notNullable();
    // HMAC of the client's /24 (IPv4) or /48 (IPv6) network with the week's key; never the address.
    t.text('network_hash');
    t.text('network_key').notNullable().comment('name of the app secret the hash was made with');
    t.text('ua_family').notNullable();
    t.text('referrer_host');
    t.primary(['listing_id', 'user_id']);
    t.foreign(['listing_id', 'user_id']).references(['listing_id', 'user_id']).inTable('votes').onDelete('CASCADE');
    t.index(['voted_at']);
  });

  // What is left of the signals after 30 days: counts per listing, no account, no network.
  await db.schema.createTable('vote_signal_aggregates', (t) => {
    t.integer('listing_id').primary().references('listings.id').onDelete('CASCADE');
    t.integer('votes').notNullable().defaultTo(0);
    t.jsonb('account_ages').notNullable().defaultTo('{}');
    t.jsonb('ua_families').notNullable().defaultTo('{}');
    t.jsonb('referrer_hosts').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });

  await db.schema.createTable('vote_flags', (t) => {
    t.increments('id');
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.integer('user_id').references('users.id').onDelete('SET NULL');
    t.date('week').notNullable().comment('Monday of the launch week scanned');
    t.text('reason').notNullable();
    t.text('detail').notNullable();
    // discounted (by a detector, not reviewed), kept (the team let it count), voided (removed by the team)
    t.text('state').notNullable().defaultTo('discounted');
    t.timestamp('flagged_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('decided_at', { useTz: true });
    t.unique(['listing_id', 'user_id']);
    t.index(['week']);
  });
  // The leaderboard's votes_discounted per listing.
  await db.raw('CREATE INDEX votes_discounted ON votes (listing_id) WHERE discount_reason IS NOT NULL');
  await db.raw(`ALTER TABLE vote_flags ADD CONSTRAINT vote_flags_state CHECK (state IN ('discounted', 'kept', 'voided'))`);

  await db.schema.createTable('vote_button_views', (t) => {
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.timestamp('hour', { useTz: true }).notNullable();
    t.integer('views').notNullable().defaultTo(0);
    t.primary(['listing_id', 'hour']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('vote_button_views');
  await db.schema.dropTableIfExists('vote_flags');
  await db.schema.dropTableIfExists('vote_signal_aggregates');
  await db.schema.dropTableIfExists('vote_signals');
  await db.raw('DROP INDEX IF EXISTS votes_discounted');
  await db.raw('ALTER TABLE votes DROP COLUMN IF EXISTS discount_reason');
  await db.schema.alterTable('weekly_results', (t) => t.dropColumn('votes_discounted'));
}
