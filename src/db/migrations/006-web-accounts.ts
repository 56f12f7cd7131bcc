import type { Knex } from 'knex';

/**
 * People in a browser: web sessions, single-use email links (verification, password reset),
 * sign-in attempts for rate limiting, and the server-side secret that signs anonymous CSRF tokens.
 * Passwords live on `users.password_hash` (001); verification on `users.email_verified_at`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('web_sessions', (t) => {
    // SHA-256 of the cookie value: a database leak does not hand out live sessions.
    t.text('id_hash').primary();
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['user_id']);
  });

  await db.schema.createTable('account_tokens', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('purpose').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['user_id', 'purpose', 'created_at']);
  });
  await db.raw(`ALTER TABLE account_tokens ADD CONSTRAINT account_tokens_purpose CHECK (purpose IN ('verify_email', 'reset_password'))`);

  await db.schema.createTable('signin_attempts', (t) => {
    t.bigIncrements('id');
    t.specificType('email', 'citext').notNullable();
    t.text('ip').notNullable();
    // pending while the password is being checked, so concurrent guesses count against the limit too.
    t.text('outcome').notNullable().defaultTo('pending');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['email', 'created_at']);
    t.index(['ip', 'created_at']);
    t.index(['created_at']);
  });

  await db.schema.createTable('app_secrets', (t) => {
    t.text('name').primary();
    t.binary('value').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['app_secrets', 'signin_attempts', 'account_tokens', 'web_sessions']) {
    await db.schema.dropTableIfExists(table);
  }
}
