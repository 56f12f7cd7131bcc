import type { Knex } from 'knex';
import type { Db } from '../../db/knex.ts';
import { ACCOUNT_TOKEN_WINDOW_MS } from '../../auth/account-tokens.ts';
import { SESSION_ABSOLUTE_MS } from '../../auth/sessions.ts';
import { reduceOldVoteSignals, VOTE_NETWORK_KEY_KEPT_MS } from '../votes/retention.ts';
import { PAGE_COUNT_KEY_PREFIX } from '../stats/page-counters.ts';
import type { PurgeKind } from '../../workflows/contracts/purge-kinds.ts';

/** A used claim link of a closed claim stays this long, so that opening it again says "already used". */
const USED_CLAIM_LINK_KEPT_MS = 86_400_000;

type Where = (q: Knex.QueryBuilder, db: Db, now: Date) => void;

const before = (now: Date, ms: number) => new Date(now.getTime() - ms);

// What makes a row dead, per kind. Each rule keeps every row some check still reads: the
// per-window counts of account tokens and the resend count of a pending claim's links.
const DEAD: Record<Exclude<PurgeKind, 'vote_signals'>, { table: string; where: Where }> = {
  idempotency_keys: { table: 'idempotency_keys', where: (q, _db, now) => q.where('expires_at', '<', now) },
  oauth_rows: { table: 'oauth_payloads', where: (q, _db, now) => q.where('expires_at', '<', now) },
  web_sessions: {
    table: 'web_sessions',
    where: (q, _db, now) => q.where('expires_at', '<', now).orWhere('created_at', '<', before(now, SESSION_ABSOLUTE_MS)),
  },
  account_tokens: {
    table: 'account_tokens',
    where: (q, _db, now) =>
      q
        .where((w) => w.where('expires_at', '<', now).orWhereNotNull('used_at'))
        .andWhere('created_at', '<', before(now, ACCOUNT_TOKEN_WINDOW_MS)),
  },
  // rate-limiter-flexible's rows: `expire` is epoch milliseconds; an expired row counts nothing.
  rate_limits: { table: 'rate_limits', where: (q, _db, now) => q.where('expire', '<', now.getTime()) },
  claim_email_links: {
    table: 'claim_email_links',
    where: (q, db, now) =>
      q
        .where((w) => w.where('expires_at', '<', now).orWhere('used_at', '<', before(now, USED_CLAIM_LINK_KEPT_MS)))
        .whereNotExists(db('claims as c').whereRaw('c.id = claim_email_links.claim_id').where('c.status', 'pending')),
  },
  // The weekly keys that hashed vote networks, once no kept signal was made with them.
  vote_network_keys: {
    table: 'app_secrets',
    where: (q, _db, now) => q.where('name', 'like', 'vote-network:%').andWhere('created_at', '<', before(now, VOTE_NETWORK_KEY_KEPT_MS)),
  },
  // What a view or click of an hour that is over left to count it once (stats/page-counters.ts).
  page_count_seen: { table: 'page_count_seen', where: (q, _db, now) => q.where('hour', '<', before(now, PAGE_COUNT_SEEN_KEPT_MS)) },
  // The daily keys those hashes were made with, once no hash of theirs is kept.
  page_count_keys: {
    table: 'app_secrets',
    where: (q, _db, now) =>
      q.where('name', 'like', `${PAGE_COUNT_KEY_PREFIX}%`).andWhere('created_at', '<', before(now, PAGE_COUNT_KEY_KEPT_MS)),
  },
};

/** An hour's hashes stay until the hour after it is over. */
const PAGE_COUNT_SEEN_KEPT_MS = 2 * 3_600_000;
/** A day's key stays a day past its day. */
const PAGE_COUNT_KEY_KEPT_MS = 2 * 86_400_000;

/**
 * Deletes at most `limit` rows of one kind that are dead at `now` and returns how many went. Bounded so that one
 * call never holds locks on a large table for long; call again while it returns `limit`.
 * Idempotent: a second call finds nothing more to delete.
 */
export async function purgeBatch(db: Db, kind: PurgeKind, limit: number, now: Date): Promise<number> {
  // Vote signals are not just deleted: they are reduced to per-listing counts first.
  if (kind === 'vote_signals') return reduceOldVoteSignals(db, limit, now);
  const { table, where } = DEAD[kind];
  const victims = db(table)
    .select('ctid')
    .where((q) => where(q, db, now))
    .limit(limit);
  return db(table).whereIn('ctid', victims).delete();
}
