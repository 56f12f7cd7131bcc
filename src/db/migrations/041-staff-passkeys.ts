import type { Knex } from 'knex';

/**
 * Staff passkeys (docs/decisions/staff-second-factor.md): WebAuthn credentials as a second
 * factor beside TOTP, the one-time challenges a web session is given for them, and `passkey` as
 * a kind of session verification.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('staff_passkeys', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('credential_id').notNullable().unique().comment('base64url, as the authenticator names it');
    t.binary('public_key').notNullable().comment('COSE public key');
    t.bigInteger('counter').notNullable().defaultTo(0).comment('Signature counter: a response may only move it forward');
    t.specificType('transports', 'text[]').notNullable().defaultTo('{}');
    t.text('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.index(['user_id']);
  });
  await db.schema.createTable('staff_webauthn_challenges', (t) => {
    t.text('session_id_hash').notNullable().references('web_sessions.id_hash').onDelete('CASCADE');
    t.text('purpose').notNullable().comment('register | authenticate');
    t.text('challenge').notNullable().comment('base64url; deleted when used: a challenge works once');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['session_id_hash', 'purpose']);
  });
  await db.raw(`ALTER TABLE web_session_factors DROP CONSTRAINT web_session_factors_factor_check`);
  await db.raw(
    `ALTER TABLE web_session_factors ADD CONSTRAINT web_session_factors_factor_check CHECK (factor IN ('totp', 'recovery_code', 'passkey'))`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db('web_session_factors').where({ factor: 'passkey' }).delete();
  await db.raw(`ALTER TABLE web_session_factors DROP CONSTRAINT web_session_factors_factor_check`);
  await db.raw(
    `ALTER TABLE web_session_factors ADD CONSTRAINT web_session_factors_factor_check CHECK (factor IN ('totp', 'recovery_code'))`,
  );
  await db.schema.dropTableIfExists('staff_webauthn_challenges');
  await db.schema.dropTableIfExists('staff_passkeys');
}
