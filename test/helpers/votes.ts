import { randomBytes } from 'node:crypto';
import { createSession, STAFF_SESSION_DEFAULTS } from '../../src/auth/sessions.ts';
import type { Db } from '../../src/db/knex.ts';
import { SESSION_COOKIE } from '../../src/web/session.ts';
import { WebClient } from './web.ts';

export interface Voter {
  id: number;
  email: string;
  /** Signed in: the session cookie is set. */
  client: WebClient;
}

/**
 * `count` accounts, each signed in with its own web session (bulk, without the sign-in form's
 * password hashing); `confirmed` sets their email as verified; `now`: the time of the service's clock.
 */
export async function voters(db: Db, baseUrl: string, count: number, confirmed = true, now = new Date()): Promise<Voter[]> {
  const tag = randomBytes(4).toString('hex');
  const users: { id: number; email: string }[] = await db('users')
    .insert(
      Array.from({ length: count }, (_, i) => ({
        email: `voter-${tag}-${i}@example.com`,
        email_verified_at: confirmed ? db.fn.now() : null,
      })),
    )
    .returning(['id', 'email']);
  return Promise.all(
    users.map(async (u) => {
      const client = new WebClient(baseUrl);
      client.cookies.set(SESSION_COOKIE, (await createSession(db, u.id, { now, staff: STAFF_SESSION_DEFAULTS })).id);
      return { ...u, client };
    }),
  );
}

/** The listing's counters and its stored vote rows. */
export async function voteCounts(db: Db, listingId: number): Promise<{ votes: number; week_votes: number; rows: number }> {
  const listing = await db('listings').where({ id: listingId }).first('votes', 'week_votes');
  const [{ count }] = await db('votes').where({ listing_id: listingId }).count({ count: '*' });
  return { votes: listing!.votes, week_votes: listing!.week_votes, rows: Number(count) };
}

/**
 * Moves a listing's launch week and its votes `weeks` weeks into the past (votes keep counting
 * for the launch week they were cast in): how tests get a finished week with real votes.
 */
export async function shiftIntoPast(db: Db, listingId: number, weeks: number): Promise<void> {
  await db('listings')
    .where({ id: listingId })
    .update({ launch_week: db.raw(`launch_week - ${7 * weeks}`) });
  await db('votes')
    .where({ listing_id: listingId })
    .update({ created_at: db.raw(`created_at - interval '${7 * weeks} days'`) });
}
