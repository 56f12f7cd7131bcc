import type { Knex } from 'knex';

/**
 * Staff roles and the staff audit log (docs/decisions/staff-roles-and-audit.md). The audit log is
 * append-only in the database itself: a trigger refuses UPDATE, DELETE and TRUNCATE, so neither the
 * service nor anyone holding its credentials can rewrite what staff did. It has no foreign keys for
 * the same reason: deleting a user or a site must not have to touch it.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('staff_roles', (t) => {
    t.increments('id');
    t.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable().comment('admin | support | moderator');
    t.integer('site_id').nullable().references('sites.id').onDelete('CASCADE').comment('Null: every site');
    t.integer('granted_by').nullable().references('users.id').onDelete('SET NULL').comment('Null: the admin command line');
    t.timestamp('granted_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.integer('revoked_by').nullable().references('users.id').onDelete('SET NULL');
  });
  await db.raw(`ALTER TABLE staff_roles ADD CONSTRAINT staff_roles_role_check CHECK (role IN ('admin', 'support', 'moderator'))`);
  await db.raw(`CREATE UNIQUE INDEX staff_roles_live ON staff_roles (user_id, role, coalesce(site_id, 0)) WHERE revoked_at IS NULL`);

  await db.schema.createTable('staff_audit', (t) => {
    t.bigIncrements('id');
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.integer('user_id').nullable().comment('Null: the admin command line');
    t.text('role').nullable().comment('The role the action was allowed by');
    t.text('factor').nullable().comment('The second factor of the session; null until staff have second factors');
    t.text('operation').notNullable();
    t.jsonb('input').notNullable().comment('With secrets redacted');
    t.text('target_kind').nullable();
    t.text('target_id').nullable();
    t.jsonb('before').nullable();
    t.jsonb('after').nullable();
    t.text('request_id').nullable();
    t.integer('site_id').nullable();
    t.index(['at']);
    t.index(['user_id', 'at']);
    t.index(['target_kind', 'target_id']);
  });
  await db.raw(`
    CREATE FUNCTION staff_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'staff_audit is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
    END $$`);
  await db.raw(
    `CREATE TRIGGER staff_audit_no_change BEFORE UPDATE OR DELETE ON staff_audit FOR EACH ROW EXECUTE FUNCTION staff_audit_append_only()`,
  );
  await db.raw(
    `CREATE TRIGGER staff_audit_no_truncate BEFORE TRUNCATE ON staff_audit FOR EACH STATEMENT EXECUTE FUNCTION staff_audit_append_only()`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('staff_audit');
  await db.raw('DROP FUNCTION IF EXISTS staff_audit_append_only()');
  await db.schema.dropTableIfExists('staff_roles');
}
