import type { Db } from '../../db/knex.ts';

/** How long the signals of a vote are kept before they are reduced to per-listing counts. */
export const VOTE_SIGNALS_KEPT_DAYS = 30;
/** A week's network key is deleted once every signal made with it is gone (30 days + that week). */
export const VOTE_NETWORK_KEY_KEPT_MS = (VOTE_SIGNALS_KEPT_DAYS + 8) * 86_400_000;

/**
 * Reduces at most `limit` vote signals older than VOTE_SIGNALS_KEPT_DAYS at `now` to their listing's
 * aggregate (votes, account ages in bands, user-agent families, referrer hosts: counts only) and
 * deletes them, in one statement. Returns how many signals went; 0 once none is that old.
 */
export async function reduceOldVoteSignals(db: Db, limit: number, now: Date): Promise<number> {
  const { rows } = await db.raw(
    `WITH old AS (
       DELETE FROM vote_signals WHERE ctid IN (
         SELECT ctid FROM vote_signals WHERE voted_at < :now::timestamptz - make_interval(days => :days) LIMIT :limit)
       RETURNING listing_id, account_age_s, ua_family, referrer_host
     ), counted AS (
       SELECT listing_id, 'age' AS kind,
         CASE WHEN account_age_s < 86400 THEN 'under_1_day' WHEN account_age_s < 7 * 86400 THEN 'under_1_week'
              WHEN account_age_s < 30 * 86400 THEN 'under_30_days' ELSE 'older' END AS k, count(*)::int AS n
       FROM old GROUP BY 1, 3
       UNION ALL SELECT listing_id, 'ua', ua_family, count(*)::int FROM old GROUP BY 1, 3
       UNION ALL SELECT listing_id, 'ref', COALESCE(referrer_host, '(none)'), count(*)::int FROM old GROUP BY 1, 3
     ), per AS (
       SELECT listing_id,
         (SELECT count(*)::int FROM old o WHERE o.listing_id = c.listing_id) AS votes,
         COALESCE(jsonb_object_agg(k, n) FILTER (WHERE kind = 'age'), '{}') AS account_ages,
         COALESCE(jsonb_object_agg(k, n) FILTER (WHERE kind = 'ua'), '{}') AS ua_families,
         COALESCE(jsonb_object_agg(k, n) FILTER (WHERE kind = 'ref'), '{}') AS referrer_hosts
       FROM counted c GROUP BY listing_id
     ), saved AS (
       INSERT INTO vote_signal_aggregates AS a (listing_id, votes, account_ages, ua_families, referrer_hosts)
       SELECT p.listing_id, p.votes, p.account_ages, p.ua_families, p.referrer_hosts FROM per p
       WHERE EXISTS (SELECT 1 FROM listings l WHERE l.id = p.listing_id)
       ON CONFLICT (listing_id) DO UPDATE SET
         votes = a.votes + EXCLUDED.votes,
         account_ages = (SELECT COALESCE(jsonb_object_agg(k, COALESCE((a.account_ages->>k)::int, 0) + COALESCE((EXCLUDED.account_ages->>k)::int, 0)), '{}')
                         FROM jsonb_object_keys(a.account_ages || EXCLUDED.account_ages) k),
         ua_families = (SELECT COALESCE(jsonb_object_agg(k, COALESCE((a.ua_families->>k)::int, 0) + COALESCE((EXCLUDED.ua_families->>k)::int, 0)), '{}')
                        FROM jsonb_object_keys(a.ua_families || EXCLUDED.ua_families) k),
         referrer_hosts = (SELECT COALESCE(jsonb_object_agg(k, COALESCE((a.referrer_hosts->>k)::int, 0) + COALESCE((EXCLUDED.referrer_hosts->>k)::int, 0)), '{}')
                           FROM jsonb_object_keys(a.referrer_hosts || EXCLUDED.referrer_hosts) k),
         updated_at = now()
       RETURNING 1
     )
     SELECT (SELECT count(*)::int FROM old) AS reduced, (SELECT count(*) FROM saved) AS saved`,
    { days: VOTE_SIGNALS_KEPT_DAYS, limit, now },
  );
  return rows[0].reduced;
}
