import test from 'ava';
import { purgeBatch } from '../../../src/domain/maintenance/purge.ts';
import { communityLeaderboard } from '../../../src/domain/ranking/leaderboard.ts';
import { voidVotes } from '../../../src/domain/ranking/voided-votes.ts';
import { withdrawVote } from '../../../src/domain/ranking/votes.ts';
import { freezeWeek } from '../../../src/domain/ranking/weekly-close.ts';
import { isoWeekStart } from '../../../src/workflows/contracts/weeks.ts';
import { voteAudit } from '../../../src/domain/votes/audit.ts';
import { scanWeek } from '../../../src/domain/votes/scan.ts';
import { hashNetwork, networkKeyName } from '../../../src/domain/votes/signals.ts';
import { startTestEnv, type TestEnv } from '../../helpers/env.ts';
import { insertLiveListing } from '../../helpers/listings.ts';
import { buttonShownForVotes, ringVotes } from '../../helpers/vote-rings.ts';
import { shiftIntoPast, voteCounts, voters } from '../../helpers/votes.ts';

/**
 * Votes with their signals, the scan that discounts a ring (kept, counting 0), the counters and
 * the weekly close, and the 30-day reduction of the signals. The client's network comes from the
 * connection, or from X-Forwarded-For only as far as TRUST_PROXY_HOPS allows.
 */

let env: TestEnv;
let proxied: TestEnv;
test.before(async () => {
  [env, proxied] = await Promise.all([startTestEnv(import.meta.url), startTestEnv(import.meta.url, { TRUST_PROXY_HOPS: '1' })]);
});
test.after.always(async () => {
  await env?.close();
  await proxied?.close();
});

const db = () => env.services.db;
const mainSite = async (e: TestEnv) => (await e.services.db('sites').where({ key: 'main' }).first('id'))!.id as number;
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

async function listing(e: TestEnv, name: string) {
  const id = await insertLiveListing(e.services.db, { name, url: `https://${name.toLowerCase().replace(/\W+/g, '')}.example.com/` });
  const { slug } = (await e.services.db('listings').where({ id }).first('slug'))!;
  return { id, slug: slug as string };
}

/** Opens the listing page (coming from `referer`) and presses Vote, with extra request headers. */
async function voteOnPage(e: TestEnv, slug: string, headers: Record<string, string>, referer?: string) {
  const [v] = await voters(e.services.db, e.baseUrl, 1);
  const page = await v!.client.get(`/listings/${slug}`, { ...headers, ...(referer ? { referer } : {}) });
  const form = page.$(`form[action="/listings/${slug}/vote"]`);
  const fields: Record<string, string> = { _csrf: form.find('input[name=_csrf]').val() as string };
  const from = form.find('input[name=from]').val();
  if (typeof from === 'string') fields.from = from;
  const res = await v!.client.post(`/listings/${slug}/vote`, fields, { ...headers, referer: `${e.baseUrl}/listings/${slug}` });
  if (res.status !== 303) throw new Error(`vote answered ${res.status}`);
  const signal = await e.services.db('vote_signals').where({ user_id: v!.id }).first();
  if (!signal) throw new Error('the vote kept no signals');
  return signal;
}

test('a vote keeps its signals: account age, a keyed hash of the network, browser family, the outside referrer; never the address', async (t) => {
  const { id, slug } = await listing(env, 'Signal Keeper');
  // TRUST_PROXY_HOPS=0: a forged X-Forwarded-For names no network; the connection (loopback) does.
  const signal = await voteOnPage(
    env,
    slug,
    { 'user-agent': FIREFOX, 'x-forwarded-for': '198.51.100.7' },
    'https://news.example/item?id=42',
  );
  t.is(signal.listing_id, id);
  t.is(signal.ua_family, 'Firefox');
  t.is(signal.referrer_host, 'news.example');
  t.is(signal.confirmed_by, 'email');
  t.true(signal.account_age_s >= 0 && signal.account_age_s < 600);
  t.is(signal.network_key, networkKeyName(new Date()));
  const key = await env.services.secrets.get(signal.network_key);
  t.is(signal.network_hash, hashNetwork(key, '127.0.0.0/24'));
  t.not(signal.network_hash, hashNetwork(key, '198.51.100.0/24'));
  t.false(JSON.stringify(signal).includes('127.0.0.1'));
  // A vote from a page reached inside the site has no outside referrer.
  const inside = await voteOnPage(env, slug, {}, `${env.baseUrl}/launches`);
  t.is(inside.referrer_host, null);
  // Node's fetch (the test client) sends `User-Agent: node`: a script, not a browser.
  t.is(inside.ua_family, 'bot');
});

test('behind one trusted proxy, the network is the address the proxy saw: the client cannot forge it with X-Forwarded-For', async (t) => {
  const { slug } = await listing(proxied, 'Proxied Launch');
  // The proxy appends the real client (203.0.113.5); anything before it came from the client.
  const signal = await voteOnPage(proxied, slug, { 'x-forwarded-for': '198.51.100.7, 203.0.113.5' });
  const key = await proxied.services.secrets.get(signal.network_key);
  t.is(signal.network_hash, hashNetwork(key, '203.0.113.0/24'));
  t.not(signal.network_hash, hashNetwork(key, '198.51.100.0/24'));
});

// The scans read the whole site's week: the two tests that scan run one after the other.
test.serial(
  'the scan discounts a ring (kept, counting 0); repeats change nothing; taking back or voiding a discounted vote lowers nothing',
  async (t) => {
    const site = await mainSite(env);
    const week = isoWeekStart(new Date());
    const target = await listing(env, 'Ring Target');
    const honest = await listing(env, 'Honest Launch');
    const organic = await ringVotes(db(), [target.id], 4, { ageDays: 100, createdMinutesApart: 60 * 24 * 9 });
    const ring = await ringVotes(db(), [target.id], 30, { network: () => 'one-network' });
    // An office within the allowance votes for the honest launch from one network.
    await ringVotes(db(), [honest.id], 5, { network: () => 'office' });
    t.deepEqual(await voteCounts(db(), target.id), { votes: 34, week_votes: 34, rows: 34 });
    await buttonShownForVotes(db(), target.id);

    const first = await scanWeek(db(), site, week);
    t.like(first, { detected: 30, raised: 30, cleared: 0, discounted: 30 });
    t.deepEqual(await voteCounts(db(), target.id), { votes: 4, week_votes: 4, rows: 34 });
    t.deepEqual(await voteCounts(db(), honest.id), { votes: 5, week_votes: 5, rows: 5 });
    const again = await scanWeek(db(), site, week);
    t.like(again, { detected: 30, raised: 0, cleared: 0, discounted: 30 });
    t.deepEqual(await voteCounts(db(), target.id), { votes: 4, week_votes: 4, rows: 34 });

    const board = await communityLeaderboard(db(), site, { weekStart: week, page: 1, perPage: 100 });
    const item = board.items.find((i) => i.id === target.id)!;
    t.like(item, { score: 4, votes_discounted: 30, votes_removed: 0 });
    t.regex(board.formula, /discounted: kept, counting 0/);
    t.regex(board.formula, /\/ranking-policy/);

    // Taking back a discounted vote lowers nothing; a counted one lowers by one.
    await withdrawVote(db(), ring[0]!, target.id, new Date());
    t.deepEqual(await voteCounts(db(), target.id), { votes: 4, week_votes: 4, rows: 33 });
    await withdrawVote(db(), organic[0]!, target.id, new Date());
    t.deepEqual(await voteCounts(db(), target.id), { votes: 3, week_votes: 3, rows: 32 });
    // Voiding a discounted vote lowers nothing either.
    await voidVotes(db(), { listingId: target.id, userId: ring[1]!, reason: 'network_cluster' });
    t.deepEqual(await voteCounts(db(), target.id), { votes: 3, week_votes: 3, rows: 31 });
    // Its flag is decided with it: voided (a later scan leaves it so).
    t.is((await db()('vote_flags').where({ listing_id: target.id, user_id: ring[1]! }).first('state'))!.state, 'voided');

    const audit = await voteAudit(db(), target.slug);
    t.like(audit, { votes_cast: 32, votes_counted: 3, votes_discounted: 28, votes_voided: 1, final: false });
    t.deepEqual(audit.discounted_by_reason, [{ reason: 'network_cluster', count: 28 }]);
    t.deepEqual(audit.voided_by_reason, [{ reason: 'network_cluster', count: 1 }]);
  },
);

test.serial('the weekly close counts discounted votes as 0 and records them', async (t) => {
  const site = await mainSite(env);
  const target = await listing(env, 'Closed Ring');
  const rival = await listing(env, 'Closed Rival');
  await ringVotes(db(), [target.id], 20, { network: () => 'close-net' });
  await ringVotes(db(), [target.id], 2, { ageDays: 50, createdMinutesApart: 60 * 24 * 5 });
  await ringVotes(db(), [rival.id], 6, { ageDays: 50, createdMinutesApart: 60 * 24 * 5 });
  await shiftIntoPast(db(), target.id, 3);
  await shiftIntoPast(db(), rival.id, 3);
  await buttonShownForVotes(db(), target.id);
  const week = (await db()('listings').where({ id: target.id }).first('launch_week'))!.launch_week as string;
  await scanWeek(db(), site, week);
  await freezeWeek(db(), site, week, new Date());
  const rows = await db()('weekly_results')
    .where({ site_id: site, week })
    .orderBy('rank')
    .select('listing_id', 'rank', 'score', 'votes_discounted');
  t.deepEqual(rows, [
    { listing_id: rival.id, rank: 1, score: 6, votes_discounted: 0 },
    { listing_id: target.id, rank: 2, score: 2, votes_discounted: 20 },
  ]);
  const board = await communityLeaderboard(db(), site, { weekStart: week, page: 1, perPage: 10 });
  t.is(board.state, 'final');
  t.like(board.items[1], { id: target.id, score: 2, votes_discounted: 20 });
  t.true((await voteAudit(db(), target.slug)).final);
});

test('after 30 days the signals are reduced to counts per listing, and old weekly keys go', async (t) => {
  const { id } = await listing(env, 'Old Signals');
  const users = await ringVotes(db(), [id], 4, { ageDays: 3, referrer: 'news.example' });
  await db()('vote_signals')
    .where({ listing_id: id })
    .whereIn('user_id', users.slice(0, 3))
    .update({ voted_at: new Date(Date.now() - 31 * 86_400_000) });
  await db()('app_secrets').insert([
    { name: 'vote-network:2020-W01', value: Buffer.alloc(32), created_at: new Date(Date.now() - 60 * 86_400_000) },
    { name: 'vote-network:2020-W02', value: Buffer.alloc(32) },
  ]);
  t.is(await purgeBatch(db(), 'vote_signals', 2, new Date()), 2);
  t.is(await purgeBatch(db(), 'vote_signals', 2, new Date()), 1);
  t.is(await purgeBatch(db(), 'vote_signals', 2, new Date()), 0);
  const left = await db()('vote_signals').where({ listing_id: id }).pluck('user_id');
  t.deepEqual(left, [users[3]]);
  const aggregate = await db()('vote_signal_aggregates').where({ listing_id: id }).first();
  t.like(aggregate, { votes: 3, account_ages: { under_1_week: 3 }, ua_families: { Chrome: 3 }, referrer_hosts: { 'news.example': 3 } });
  // The votes themselves stay and count.
  t.is((await voteCounts(db(), id)).week_votes, 4);
  t.is(await purgeBatch(db(), 'vote_network_keys', 100, new Date()), 1);
  t.deepEqual(await db()('app_secrets').where('name', 'like', 'vote-network:2020%').pluck('name'), ['vote-network:2020-W02']);
});
