import test from 'ava';
import { detectBursts } from '../../../src/domain/votes/detectors/burst.ts';
import { detectCoVotingRings, poissonTail } from '../../../src/domain/votes/detectors/co-voting.ts';
import { detectWeek } from '../../../src/domain/votes/detectors/index.ts';
import { detectNetworkClusters, NETWORK_ALLOWANCE } from '../../../src/domain/votes/detectors/network-cluster.ts';
import { HOUR_MS, type HourViews, type WeekVote } from '../../../src/domain/votes/detectors/types.ts';
import { hashNetwork, networkKeyName, networkOf, referrerHost, uaFamily } from '../../../src/domain/votes/signals.ts';

/** Each detector on crafted weeks: the ring it must find, and the honest crowds it must leave alone. */

const DAY = 24 * HOUR_MS;
const MONDAY = Date.parse('2026-11-23T00:00:00Z');

let nextUser = 1;
function vote(v: Partial<WeekVote> & { listingId: number }): WeekVote {
  return {
    userId: nextUser++,
    at: MONDAY + DAY + 10 * HOUR_MS,
    accountCreatedAt: MONDAY - 200 * DAY,
    network: `net-${nextUser}`,
    uaFamily: 'Firefox',
    referrerHost: null,
    ...v,
  };
}

/** Organic background: `n` voters on their own networks, 1–3 of 30 listings each, spread over the week, each shown the button. */
function background(n: number, seed = 7): { votes: WeekVote[]; views: HourViews[] } {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const votes: WeekVote[] = [];
  const views: HourViews[] = [];
  for (let i = 0; i < n; i++) {
    const userId = nextUser++;
    const count = 1 + Math.floor(rand() * 3);
    const listings = new Set<number>();
    while (listings.size < count) listings.add(100 + Math.floor(rand() ** 2 * 30));
    for (const listingId of listings) {
      const at = MONDAY + Math.floor(rand() * 7 * DAY);
      votes.push({
        listingId,
        userId,
        at,
        accountCreatedAt: at - Math.floor(rand() * 400) * DAY,
        network: `bg-${userId}`,
        uaFamily: 'Chrome',
        referrerHost: null,
      });
      views.push({ listingId, hour: at - (at % HOUR_MS), views: 2 });
    }
  }
  return { votes, views };
}

const keys = (ds: { listingId: number; userId: number }[]) => ds.map((d) => `${d.listingId}:${d.userId}`).sort();

test('network_cluster: 30 accounts created within minutes on one network are flagged, all of them', (t) => {
  const ring = Array.from({ length: 30 }, (_, i) =>
    vote({ listingId: 1, network: 'ring-net', accountCreatedAt: MONDAY + DAY + i * 60_000, at: MONDAY + DAY + HOUR_MS + i * 60_000 }),
  );
  const flags = detectNetworkClusters({ votes: [...ring, ...background(300).votes], views: [] });
  t.deepEqual(keys(flags), keys(ring));
  t.true(flags.every((f) => f.reason === 'network_cluster'));
  t.regex(flags[0]!.detail, /30 accounts created within 24 hours/);
});

test('network_cluster leaves an office within the allowance, an office of older accounts, and a popular launch of new accounts on many networks', (t) => {
  // An office: the allowance of brand-new accounts, all from one network, all on one launch.
  const office = Array.from({ length: NETWORK_ALLOWANCE }, (_, i) =>
    vote({ listingId: 2, network: 'office', accountCreatedAt: MONDAY + DAY + i * 60_000 }),
  );
  // A bigger office whose people joined over the months.
  const colleagues = Array.from({ length: 25 }, (_, i) =>
    vote({ listingId: 2, network: 'big-office', accountCreatedAt: MONDAY - (i + 1) * 5 * DAY }),
  );
  // A popular launch: 400 accounts created today, each from its own network (two per /24 at most).
  const popular = Array.from({ length: 400 }, (_, i) =>
    vote({
      listingId: 3,
      network: `home-${Math.floor(i / 2)}`,
      accountCreatedAt: MONDAY + DAY + i * 30_000,
      at: MONDAY + DAY + 2 * HOUR_MS + i * 30_000,
    }),
  );
  t.deepEqual(detectNetworkClusters({ votes: [...office, ...colleagues, ...popular], views: [] }), []);
  // One account more than the allowance, created the same day, tips the office over.
  const sixth = vote({ listingId: 2, network: 'office', accountCreatedAt: MONDAY + DAY + 10 * 60_000 });
  t.is(detectNetworkClusters({ votes: [...office, sixth], views: [] }).length, NETWORK_ALLOWANCE + 1);
  // Votes without a known network are never clustered.
  t.deepEqual(detectNetworkClusters({ votes: [...office, sixth].map((v): WeekVote => ({ ...v, network: null })), views: [] }), []);
});

test('co_voting_ring: 12 older accounts that always vote for the same 3 listings are flagged on those 3, and nowhere else', (t) => {
  const bg = background(1500);
  const ring: WeekVote[] = [];
  for (let i = 0; i < 12; i++) {
    const userId = nextUser++;
    for (const listingId of [110, 117, 123]) ring.push(vote({ listingId, userId, at: MONDAY + (i % 7) * DAY + listingId * 60_000 }));
  }
  const flags = detectCoVotingRings({ votes: [...bg.votes, ...ring], views: [] });
  t.deepEqual(keys(flags), keys(ring));
  t.regex(flags[0]!.detail, /12 accounts voted together for the same 3 listings \(110, 117, 123\)/);
});

test('co_voting_ring leaves organic overlap alone, even on the week’s two most popular launches', (t) => {
  // Every voter of the background votes for popular listings more often (skewed choice), so pairs recur a lot.
  t.deepEqual(detectCoVotingRings(background(3000, 11)), []);
  // Seven friends voting for the same three launches: below the ring size.
  const friends: WeekVote[] = [];
  for (let i = 0; i < 7; i++) {
    const userId = nextUser++;
    for (const listingId of [201, 202, 203]) friends.push(vote({ listingId, userId }));
  }
  t.deepEqual(detectCoVotingRings({ votes: [...background(500).votes, ...friends], views: [] }), []);
  // Heavy voters (more than a small set) are not a small-set ring.
  const heavy: WeekVote[] = [];
  for (let i = 0; i < 12; i++) {
    const userId = nextUser++;
    for (let l = 300; l < 310; l++) heavy.push(vote({ listingId: l, userId }));
  }
  t.deepEqual(detectCoVotingRings({ votes: [...background(500).votes, ...heavy], views: [] }), []);
});

test('poissonTail is the chance of at least k', (t) => {
  t.is(poissonTail(0, 3), 1);
  t.true(Math.abs(poissonTail(1, 2) - (1 - Math.exp(-2))) < 1e-12);
  t.true(poissonTail(12, 0.1) < 1e-15);
  t.is(poissonTail(3, 0), 0);
});

test('burst: 40 votes in 20 minutes from one referrer with the button barely shown are flagged; the scattered others count', (t) => {
  const hour = MONDAY + 3 * DAY + 20 * HOUR_MS;
  const burst = Array.from({ length: 40 }, (_, i) =>
    vote({ listingId: 5, at: hour + 5 * 60_000 + i * 30_000, referrerHost: 'votes-for-sale.example' }),
  );
  const others = [
    vote({ listingId: 5, at: hour + 60_000, referrerHost: 'news.example' }),
    vote({ listingId: 5, at: hour + 120_000, referrerHost: null }),
  ];
  const views: HourViews[] = [{ listingId: 5, hour, views: 3 }];
  const flags = detectBursts({ votes: [...burst, ...others], views });
  t.deepEqual(keys(flags), keys(burst));
  t.regex(flags[0]!.detail, /42 votes in the hour .* \(40 from votes-for-sale\.example\) while the Vote button was shown 3 times/);
});

test('burst leaves a launch day rush its traffic explains, and small hours', (t) => {
  const hour = MONDAY + 2 * DAY + 9 * HOUR_MS;
  // 150 votes in an hour from one newsletter, with the button shown 400 times (this hour and the last).
  const rush = Array.from({ length: 150 }, (_, i) => vote({ listingId: 6, at: hour + i * 20_000, referrerHost: 'newsletter.example' }));
  const views: HourViews[] = [
    { listingId: 6, hour: hour - HOUR_MS, views: 150 },
    { listingId: 6, hour, views: 250 },
  ];
  t.deepEqual(detectBursts({ votes: rush, views }), []);
  // Ten votes in an hour never make a burst, whatever the traffic.
  const few = Array.from({ length: 10 }, (_, i) => vote({ listingId: 7, at: hour + i * 60_000, referrerHost: 'x.example' }));
  t.deepEqual(detectBursts({ votes: few, views: [] }), []);
});

test('detectWeek: one flag per vote, the first reason wins, and the same votes give the same flags in any order', (t) => {
  const ring = Array.from({ length: 30 }, (_, i) =>
    vote({
      listingId: 9,
      network: 'ring',
      accountCreatedAt: MONDAY + DAY + i * 1000,
      at: MONDAY + DAY + HOUR_MS + i * 10_000,
      referrerHost: 'r.example',
    }),
  );
  const bg = background(800, 3);
  const week = { votes: [...bg.votes, ...ring], views: bg.views };
  const flags = detectWeek(week);
  // The same 30 votes are a network cluster and a burst: stored once, as network_cluster.
  t.deepEqual(keys(flags), keys(ring));
  t.true(flags.every((f) => f.reason === 'network_cluster'));
  const shuffled = { votes: [...week.votes].reverse(), views: [...week.views].reverse() };
  t.deepEqual(detectWeek(shuffled), flags);
});

test('signals: /24 and /48 networks, a keyed hash that changes with the key, browser families and outside referrers', (t) => {
  t.is(networkOf('203.0.113.77'), '203.0.113.0/24');
  t.is(networkOf('::ffff:203.0.113.9'), '203.0.113.0/24');
  t.is(networkOf('2001:db8:abcd:12::1'), '2001:db8:abcd::/48');
  t.is(networkOf('unknown'), null);
  t.is(networkOf(''), null);
  const k1 = Buffer.alloc(32, 1);
  const k2 = Buffer.alloc(32, 2);
  t.is(hashNetwork(k1, '203.0.113.0/24'), hashNetwork(k1, '203.0.113.0/24'));
  t.not(hashNetwork(k1, '203.0.113.0/24'), hashNetwork(k2, '203.0.113.0/24'));
  t.not(hashNetwork(k1, '203.0.113.0/24'), hashNetwork(k1, '203.0.114.0/24'));
  t.false(hashNetwork(k1, '203.0.113.0/24').includes('203'));
  t.is(networkKeyName(new Date('2026-11-29T23:59:59Z')), 'vote-network:2026-W48');
  t.is(networkKeyName(new Date('2026-11-30T00:00:00Z')), 'vote-network:2026-W49');
  const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
  t.is(uaFamily(chrome), 'Chrome');
  t.is(uaFamily(`${chrome} Edg/131.0.0.0`), 'Edge');
  t.is(uaFamily('Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'), 'Firefox');
  t.is(
    uaFamily(
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    ),
    'Safari',
  );
  t.is(uaFamily('curl/8.5.0'), 'bot');
  t.is(uaFamily(''), 'none');
  t.is(uaFamily('Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko)'), 'other');
  t.is(referrerHost('https://News.Example/item?id=1', 'dir.example'), 'news.example');
  t.is(referrerHost('https://dir.example/launches', 'dir.example:8080'), null);
  t.is(referrerHost('javascript:alert(1)', 'dir.example'), null);
  t.is(referrerHost('not a url', 'dir.example'), null);
  t.is(referrerHost(null, 'dir.example'), null);
});
