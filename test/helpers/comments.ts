import type { Db } from '../../src/db/knex.ts';

/** Makes an account a confirmed one of some days (its comments are not held as a new account's). */
export async function seasonedAccount(db: Db, userId: number, days = 3): Promise<void> {
  await db('users')
    .where({ id: userId })
    .update({ email_verified_at: db.fn.now(), created_at: db.raw(`now() - make_interval(days => ?)`, [days]) });
}
