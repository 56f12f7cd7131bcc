import type { Knex } from 'knex';

export async function up(db: Knex): Promise<void> {
  await db.raw('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await db.raw('CREATE EXTENSION IF NOT EXISTS citext');

  await db.schema.createTable('sites', (t) => {
    t.increments('id');
    t.text('key').notNullable().unique();
    t.text('name').notNullable();
    t.text('host').unique();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.jsonb('settings').notNullable().defaultTo('{}');
    t.timestamps(true, true);
  });
  await db.raw('CREATE UNIQUE INDEX sites_one_default ON sites (is_default) WHERE is_default');

  await db.schema.createTable('users', (t) => {
    t.increments('id');
    t.specificType('email', 'citext').notNullable().unique();
    t.text('password_hash');
    t.timestamp('email_verified_at', { useTz: true });
    t.timestamps(true, true);
  });

  await db.schema.createTable('api_keys', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('prefix').notNullable();
    t.text('key_hash').notNullable().unique();
    t.specificType('scopes', 'text[]').notNullable();
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['user_id']);
  });

  await db.schema.createTable('idempotency_keys', (t) => {
    t.text('credential').notNullable();
    t.text('operation').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.text('state').notNullable().defaultTo('in_flight');
    t.integer('response_status');
    t.jsonb('response_body');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['credential', 'operation', 'key']);
    t.index(['expires_at']);
  });

  await db.schema.createTable('listings', (t) => {
    t.increments('id');
    t.integer('site_id').notNullable().references('sites.id');
    t.integer('owner_id').references('users.id');
    t.text('slug').notNullable().unique();
    t.text('company_domain').notNullable();
    t.text('name').notNullable();
    t.text('url').notNullable();
    t.text('status').notNullable().defaultTo('draft');
    t.text('plan');
    t.date('launch_week');
    t.specificType('unlocked_sections', 'text[]').notNullable().defaultTo('{}');
    t.text('headline');
    t.text('summary');
    t.text('seo_title');
    t.text('seo_description');
    t.text('logo_url');
    t.text('image_url');
    t.text('contact_email');
    t.jsonb('facts').notNullable().defaultTo('{}');
    t.jsonb('socials').notNullable().defaultTo('{}');
    t.jsonb('faqs').notNullable().defaultTo('[]');
    t.specificType('categories', 'text[]').notNullable().defaultTo('{}');
    t.jsonb('evidence').notNullable().defaultTo('{}');
    t.integer('votes').notNullable().defaultTo(0);
    t.timestamp('live_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['owner_id']);
    t.index(['company_domain']);
  });
  await db.raw(`
    ALTER TABLE listings ADD COLUMN search tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('simple', coalesce(name, '')), 'A') ||
      setweight(to_tsvector('english', coalesce(headline, '')), 'B') ||
      setweight(to_tsvector('english', coalesce(summary, '')), 'C')
    ) STORED`);
  await db.raw(`CREATE INDEX listings_search ON listings USING gin (search) WHERE status = 'live'`);
  await db.raw(`CREATE INDEX listings_name_trgm ON listings USING gin (lower(name) gin_trgm_ops) WHERE status = 'live'`);
  await db.raw(`CREATE INDEX listings_live_votes ON listings (site_id, votes DESC, id) WHERE status = 'live'`);

  await db.schema.createTable('drafts', (t) => {
    t.increments('id');
    t.integer('owner_id').notNullable().references('users.id');
    t.integer('site_id').notNullable().references('sites.id');
    t.text('url').notNullable();
    t.text('status').notNullable().defaultTo('crawling');
    t.text('failure_code');
    t.text('failure_reason');
    t.jsonb('pages');
    t.jsonb('fields');
    t.jsonb('evidence').notNullable().defaultTo('{}');
    t.integer('listing_id').references('listings.id');
    t.timestamps(true, true);
    t.index(['owner_id']);
  });

  await db.schema.createTable('votes', (t) => {
    t.integer('listing_id').notNullable().references('listings.id').onDelete('CASCADE');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['listing_id', 'user_id']);
  });

  await db.schema.createTable('products', (t) => {
    t.increments('id');
    t.integer('site_id').notNullable().references('sites.id');
    t.text('key').notNullable();
    t.text('name').notNullable();
    t.text('description').notNullable();
    t.integer('price_cents').notNullable();
    t.boolean('needs_listing').notNullable().defaultTo(true);
    t.jsonb('options').notNullable().defaultTo('{}');
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamps(true, true);
    t.unique(['site_id', 'key']);
  });

  await db.schema.createTable('interview_questions', (t) => {
    t.increments('id');
    t.integer('site_id').notNullable().references('sites.id');
    t.integer('position').notNullable();
    t.text('text').notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamps(true, true);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'interview_questions',
    'products',
    'votes',
    'drafts',
    'listings',
    'idempotency_keys',
    'api_keys',
    'users',
    'sites',
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
