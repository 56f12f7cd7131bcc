import type { Knex } from 'knex';

/**
 * A change notice (`person`, with the user's id) at the commit of every write to what a signed-in
 * person's pages show of their own: their sessions and account, staff roles, notifications, votes,
 * listings they own, follows, comments and comment votes. Each api process keeps that state per
 * person (src/auth/session-cache.ts, src/operations/read-models/page-person.ts); triggers, not
 * the code paths that write, announce it, so a write from a worker, the admin console or a
 * migration cannot leave a person's pages wrong. A TRUNCATE announces every person.
 */
/** CHANGES_CHANNEL of src/db/notify.ts, as a migration keeps what it was written with. */
const CHANGES_CHANNEL = 'listing_directory_changes';

const BY_USER_ID: [table: string, events: string][] = [
  ['web_sessions', 'UPDATE OR DELETE'],
  ['staff_roles', 'INSERT OR UPDATE OR DELETE'],
  ['notifications', 'INSERT OR UPDATE OR DELETE'],
  ['votes', 'INSERT OR UPDATE OR DELETE'],
  ['listing_followers', 'INSERT OR UPDATE OR DELETE'],
  ['comments', 'INSERT OR UPDATE OR DELETE'],
  ['comment_votes', 'INSERT OR UPDATE OR DELETE'],
];

const notice = (user: string) =>
  `pg_notify('${CHANGES_CHANNEL}', json_build_object('site', null, 'what', 'person', 'user', ${user})::text)`;

export async function up(db: Knex): Promise<void> {
  await db.raw(`CREATE FUNCTION person_changed_by_user_id() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.user_id IS NOT NULL THEN PERFORM ${notice('OLD.user_id')}; END IF;
      IF TG_OP <> 'DELETE' AND NEW.user_id IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
        PERFORM ${notice('NEW.user_id')};
      END IF;
      RETURN NULL;
    END $$`);
  await db.raw(`CREATE FUNCTION person_changed_user() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM ${notice('OLD.id')}; RETURN NULL; END $$`);
  // Only an owner's change: vote counts and edits rewrite listing rows all day and concern no person.
  await db.raw(`CREATE FUNCTION person_changed_owner() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND OLD.owner_id IS NOT NULL THEN PERFORM ${notice('OLD.owner_id')}; END IF;
      IF TG_OP <> 'DELETE' AND NEW.owner_id IS NOT NULL THEN PERFORM ${notice('NEW.owner_id')}; END IF;
      RETURN NULL;
    END $$`);
  await db.raw(`CREATE FUNCTION people_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('${CHANGES_CHANNEL}', json_build_object('site', null, 'what', 'person')::text); RETURN NULL; END $$`);
  for (const [table, events] of BY_USER_ID) {
    await db.raw(`CREATE TRIGGER ${table}_person AFTER ${events} ON ${table} FOR EACH ROW EXECUTE FUNCTION person_changed_by_user_id()`);
  }
  await db.raw(`CREATE TRIGGER users_person AFTER UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION person_changed_user()`);
  await db.raw(
    `CREATE TRIGGER listings_person_insert AFTER INSERT OR DELETE ON listings FOR EACH ROW EXECUTE FUNCTION person_changed_owner()`,
  );
  await db.raw(`CREATE TRIGGER listings_person_owner AFTER UPDATE OF owner_id ON listings FOR EACH ROW
    WHEN (OLD.owner_id IS DISTINCT FROM NEW.owner_id) EXECUTE FUNCTION person_changed_owner()`);
  for (const table of [...BY_USER_ID.map(([t]) => t), 'users', 'listings']) {
    await db.raw(`CREATE TRIGGER ${table}_people_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION people_changed()`);
  }
}

export async function down(db: Knex): Promise<void> {
  for (const table of [...BY_USER_ID.map(([t]) => t), 'users', 'listings']) {
    await db.raw(`DROP TRIGGER ${table}_people_truncate ON ${table}`);
  }
  for (const [table] of BY_USER_ID) await db.raw(`DROP TRIGGER ${table}_person ON ${table}`);
  await db.raw('DROP TRIGGER users_person ON users');
  await db.raw('DROP TRIGGER listings_person_insert ON listings');
  await db.raw('DROP TRIGGER listings_person_owner ON listings');
  await db.raw('DROP FUNCTION person_changed_by_user_id(), person_changed_user(), person_changed_owner(), people_changed()');
}
