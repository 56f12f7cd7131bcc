/**
 * What the launch-day mix needs besides the load test's fixtures: this week's launches (counts
 * from zero, so every vote on them is the traffic's), signed-in voters with a session and the CSRF
 * token their pages carry, and commenters with API keys. Accounts are a month old with confirmed
 * email addresses: a launch day's regulars, whose comments are not held for review.
 */
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createSession } from '../../src/auth/sessions.ts';
import type { Db } from '../../src/db/knex.ts';
import { SESSION_COOKIE } from '../../src/web/session.ts';

export interface LaunchFixtures {
  launches: { id: number; slug: string }[];
  voters: { id: number; cookie: string; csrf: string }[];
  /** API keys with comments:write. */
  commenters: string[];
}

export interface LaunchCounts {
  /** Listings `bench-{first}` … voted and commented on. */
  first: number;
  launches: number;
  voters: number;
  commenters: number;
}

const MONTH_AGO = () => new Date(Date.now() - 30 * 24 * 3600_000);

export async function prepareLaunchDay(db: Db, baseUrl: string, counts: LaunchCounts): Promise<LaunchFixtures> {
  const slugs = Array.from({ length: counts.launches }, (_, i) => `bench-${counts.first + i}`);
  const launches: LaunchFixtures['launches'] = await db('listings')
    .whereIn('slug', slugs)
    .update({ votes: 0, week_votes: 0 })
    .returning(['id', 'slug']);
  const accounts = (prefix: string, n: number): Promise<{ id: number }[]> =>
    db('users')
      .insert(
        Array.from({ length: n }, (_, i) => ({
          email: `${prefix}-${i}@example.com`,
          email_verified_at: MONTH_AGO(),
          created_at: MONTH_AGO(),
        })),
      )
      .returning('id');
  const voterRows = await accounts('launch-voter', counts.voters);
  const voters: LaunchFixtures['voters'] = [];
  for (let i = 0; i < voterRows.length; i += 20) {
    const batch = voterRows.slice(i, i + 20).map(async ({ id }) => {
      const cookie = `${SESSION_COOKIE}=${(await createSession(db, id)).id}`;
      return { id, cookie, csrf: await csrfOf(baseUrl, launches[0]!.slug, cookie) };
    });
    voters.push(...(await Promise.all(batch)));
  }
  const commenters: string[] = [];
  for (const { id } of await accounts('launch-commenter', counts.commenters)) {
    commenters.push((await createApiKey(db, id, 'launch day', ['comments:write', 'account:read'])).key);
  }
  return { launches, voters, commenters };
}

/** The CSRF token the listing's page gives this session, as a browser gets it before it votes. */
async function csrfOf(baseUrl: string, slug: string, cookie: string): Promise<string> {
  const page = await (await fetch(`${baseUrl}/listings/${slug}`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error(`no CSRF token on /listings/${slug} for a signed-in voter`);
  return csrf;
}
