import type { Knex } from 'knex';

/**
 * Staff second factors (docs/decisions/staff-second-factor.md): one TOTP secret per person, kept
 * sealed under an app secret; its one-time recovery codes, kept hashed; and the factor each web
 * session was verified with, which dies with the session.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('staff_totp', (t) => {
    t.integer('user_id').primary().references('users.id').onDelete('CASCADE');
    t.binary('secret_box').notNullable().comment('AES-256-GCM under the app secret staff-totp-secrets');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('confirmed_at', { useTz: true }).nullable().comment('Null: enrolment not confirmed with a code yet');
    t.bigInteger('last_step').nullable().comment('The last 30-second step a code was accepted for: a code works once');
  });
  await db.schema.createTable('staff_recovery_codes', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('code_hash').notNullable();
    t.timestamp('used_at', { useTz: true }).nullable();
    t.unique(['user_id', 'code_hash']);
  });
  await db.schema.createTable('web_session_factors', (t) => {
    t.text('session_id_hash').primary().references('web_sessions.id_hash').onDelete('CASCADE');
    t.text('factor').notNullable().comment('totp | recovery_code');
    t.timestamp('verified_at', { useTz: true }).notNullable();
  });
  await db.raw(
    `ALTER TABLE web_session_factors ADD CONSTRAINT web_session_factors_factor_check CHECK (factor IN ('totp', 'recovery_code'))`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('web_session_factors');
  await db.schema.dropTableIfExists('staff_recovery_codes');
  await db.schema.dropTableIfExists('staff_totp');
}
