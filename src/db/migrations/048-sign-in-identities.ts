import type { Knex } from 'knex';

/**
 * Signing in with GitHub or Google (docs/decisions/social-sign-in.md): the identities linked to
 * an account, the attempts in flight (PKCE verifier, state and nonce kept here, the browser
 * holds only a random id), and the links waiting for the mailbox owner's confirmation.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('sign_in_identities', (t) => {
    t.bigIncrements('id');
    t.text('provider').notNullable().comment('github | google');
    t.text('subject').notNullable().comment("The provider's stable user id (GitHub's numeric id, Google's sub)");
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('email').notNullable().comment('The verified address the provider gave when the identity was linked');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.unique(['provider', 'subject']);
    t.unique(['user_id', 'provider']);
  });
  await db.raw(`ALTER TABLE sign_in_identities ADD CONSTRAINT sign_in_identities_provider CHECK (provider IN ('github', 'google'))`);

  await db.schema.createTable('sign_in_attempts', (t) => {
    t.text('id_hash').primary().comment("SHA-256 of the browser cookie's value");
    t.text('provider').notNullable();
    t.text('state').notNullable();
    t.text('nonce');
    t.text('code_verifier').notNullable();
    t.integer('link_user_id').references('users.id').onDelete('CASCADE').comment('Set when a signed-in person links a provider');
    t.text('return_to').notNullable().defaultTo('/account');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
  });

  await db.schema.createTable('sign_in_link_requests', (t) => {
    t.bigIncrements('id');
    t.text('token_hash').notNullable().unique();
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('provider').notNullable();
    t.text('subject').notNullable();
    t.text('email').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['user_id', 'created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('sign_in_link_requests');
  await db.schema.dropTable('sign_in_attempts');
  await db.schema.dropTable('sign_in_identities');
}
