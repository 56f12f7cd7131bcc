import type { Knex } from 'knex';

/**
 * Accounts people control (docs/accounts.md): the device each web session signed in from and a
 * public id to name it by (the id hash stays private: CSRF tokens are bound to it), pending email
 * changes (single-use links, stored hashed), data exports, and the mark a deleted account keeps.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('web_sessions', (t) => {
    t.text('device_label').comment('Browser and system, from the User-Agent at sign-in');
    t.uuid('public_id').notNullable().defaultTo(db.raw('gen_random_uuid()')).unique();
  });
  await db.schema.alterTable('users', (t) => {
    t.timestamp('deleted_at', { useTz: true }).comment('Set when the person deleted the account; the row stays for invoices and votes');
  });
  await db.schema.createTable('account_email_changes', (t) => {
    t.bigIncrements('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.specificType('new_email', 'citext').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true });
    t.index(['user_id', 'created_at']);
  });
  await db.schema.createTable('account_exports', (t) => {
    t.bigIncrements('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('requested_at', { useTz: true }).notNullable();
    t.timestamp('ready_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true }).comment('The download link stops working then; the archive goes with the account');
    t.jsonb('archive');
    t.index(['user_id', 'requested_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('account_exports');
  await db.schema.dropTable('account_email_changes');
  await db.schema.alterTable('users', (t) => t.dropColumn('deleted_at'));
  await db.schema.alterTable('web_sessions', (t) => {
    t.dropColumn('public_id');
    t.dropColumn('device_label');
  });
}
