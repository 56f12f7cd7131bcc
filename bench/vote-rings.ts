/**
 * `npm run bench:vote-rings [seed]`: builds a launch week of organic voters (varied networks,
 * account ages, spread over the days, a popular launch with many new accounts, offices voting
 * from one network) and three ring shapes, runs the detectors (src/domain/votes/detectors) and
 * prints, per shape, how many of its votes were discounted (recall) and, per reason, how many of
 * the votes it discounted were ring votes (precision). Targets: ≥ 95 % of ring votes discounted,
 * ≤ 1 % of organic votes discounted. Pure: no database, same seed, same numbers.
 */
import { detectWeek } from '../src/domain/votes/detectors/index.ts';
import { HOUR_MS, REASON_CODES, type HourViews, type WeekVote } from '../src/domain/votes/detectors/types.ts';

const DAY_MS = 24 * HOUR_MS;
const WEEK_START = Date.parse('2026-11-23T00:00:00Z');
const LISTINGS = 40;
const ORGANIC_VOTERS = 3000;

type Shape = 'organic' | 'fresh_network_ring' | 'co_voting_ring' | 'referrer_burst';

function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)] };
}

export function buildWeek(seed: number) {
  const r = rng(seed);
  const votes: (WeekVote & { shape: Shape })[] = [];
  const views = new Map<string, number>();
  const view = (listingId: number, at: number, n = 1) => {
    const hour = at - (at % HOUR_MS);
    views.set(`${listingId}:${hour}`, (views.get(`${listingId}:${hour}`) ?? 0) + n);
  };
  let nextUser = 1;
  let nextNetwork = 1;
  const referrers = ['news.example', 'social.example', 'search.example', 'blog.example', null, null, null];
  const uas = ['Chrome', 'Chrome', 'Safari', 'Firefox', 'Edge'];
  // Popularity: listing 1 is the popular launch, then a long tail (Zipf-like).
  const weights = Array.from({ length: LISTINGS }, (_, i) => 1 / (i + 1) ** 0.8);
  const total = weights.reduce((a, b) => a + b, 0);
  const pickListing = () => {
    let x = r.next() * total;
    for (let i = 0; i < LISTINGS; i++) if ((x -= weights[i]) <= 0) return i + 1;
    return LISTINGS;
  };
  // Daytime-weighted moment of the week.
  const moment = () => WEEK_START + r.int(7) * DAY_MS + (8 + r.next() * 14) * HOUR_MS;
  // Offices: up to 5 colleagues (the allowance), some with new accounts, on one network.
  const offices = Array.from({ length: 60 }, () => ({ network: `net-${nextNetwork++}`, left: 2 + r.int(4) }));

  for (let i = 0; i < ORGANIC_VOTERS; i++) {
    const userId = nextUser++;
    const office = r.next() < 0.08 ? offices.find((o) => o.left > 0) : undefined;
    if (office) office.left--;
    const network = office?.network ?? `net-${nextNetwork++}`;
    const first = moment();
    // A fifth are new this week (many came for the popular launch), the rest are older accounts.
    const isNew = r.next() < 0.2;
    const createdAt = isNew ? first - r.int(3 * HOUR_MS) : first - (2 + r.int(700)) * DAY_MS;
    const count = isNew ? 1 + r.int(2) : 1 + r.int(4);
    const chosen = new Set<number>();
    if (isNew) chosen.add(r.next() < 0.6 ? 1 : pickListing());
    while (chosen.size < count) chosen.add(pickListing());
    let at = first;
    for (const listingId of chosen) {
      view(listingId, at - r.int(20) * 60_000, 1 + r.int(2));
      votes.push({
        shape: 'organic',
        listingId,
        userId,
        at,
        accountCreatedAt: createdAt,
        network,
        uaFamily: r.pick(uas),
        referrerHost: r.pick(referrers),
      });
      at += r.int(2 * DAY_MS);
    }
  }
  // Visitors who look and do not vote.
  for (let i = 0; i < 20_000; i++) view(pickListing(), moment());

  // Shape 1: 30 fresh accounts on one network, created and voting within minutes.
  const ringNet = `net-${nextNetwork++}`;
  const t1 = WEEK_START + 2 * DAY_MS + 13 * HOUR_MS;
  for (let i = 0; i < 30; i++) {
    const at = t1 + i * 40_000;
    view(7, at - 20_000);
    votes.push({
      shape: 'fresh_network_ring',
      listingId: 7,
      userId: nextUser++,
      at,
      accountCreatedAt: at - 5 * 60_000,
      network: ringNet,
      uaFamily: 'Chrome',
      referrerHost: null,
    });
  }
  // Shape 2: 12 older accounts on their own networks, always voting together for listings 12, 19, 25.
  for (let i = 0; i < 12; i++) {
    const userId = nextUser++;
    const createdAt = WEEK_START - (30 + r.int(300)) * DAY_MS;
    const network = `net-${nextNetwork++}`;
    for (const listingId of [12, 19, 25]) {
      const at = moment();
      view(listingId, at);
      votes.push({
        shape: 'co_voting_ring',
        listingId,
        userId,
        at,
        accountCreatedAt: createdAt,
        network,
        uaFamily: r.pick(uas),
        referrerHost: r.pick(referrers),
      });
    }
  }
  // Shape 3: 40 votes within 20 minutes from one referrer, scripted (the button barely shown).
  const t3 = WEEK_START + 4 * DAY_MS + 20 * HOUR_MS + 5 * 60_000;
  view(15, t3, 3);
  for (let i = 0; i < 40; i++) {
    const at = t3 + i * 30_000;
    votes.push({
      shape: 'referrer_burst',
      listingId: 15,
      userId: nextUser++,
      at,
      accountCreatedAt: at - (1 + r.int(400)) * DAY_MS,
      network: `net-${nextNetwork++}`,
      uaFamily: 'Chrome',
      referrerHost: 'votes-for-sale.example',
    });
  }
  const hourViews: HourViews[] = [...views.entries()].map(([key, n]) => {
    const [listingId, hour] = key.split(':').map(Number);
    return { listingId, hour, views: n };
  });
  return { votes, views: hourViews };
}

function main() {
  const seed = Number(process.argv[2] ?? 24);
  const week = buildWeek(seed);
  const started = performance.now();
  const flags = detectWeek(week);
  const ms = performance.now() - started;
  const flagged = new Map(flags.map((f) => [`${f.listingId}:${f.userId}`, f.reason]));
  const shapes: Shape[] = ['fresh_network_ring', 'co_voting_ring', 'referrer_burst', 'organic'];
  const rows = shapes.map((shape) => {
    const of = week.votes.filter((v) => v.shape === shape);
    const hit = of.filter((v) => flagged.has(`${v.listingId}:${v.userId}`)).length;
    return { shape, votes: of.length, discounted: hit, share: (100 * hit) / of.length };
  });
  const shapeOf = new Map(week.votes.map((v) => [`${v.listingId}:${v.userId}`, v.shape]));
  console.log(
    `seed ${seed}: ${week.votes.length} votes, ${new Set(week.votes.map((v) => v.userId)).size} accounts, detectors ran in ${ms.toFixed(0)} ms\n`,
  );
  console.log('| shape | votes | discounted | share discounted |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const row of rows) console.log(`| ${row.shape} | ${row.votes} | ${row.discounted} | ${row.share.toFixed(1)} % |`);
  const ring = rows.filter((r) => r.shape !== 'organic');
  const ringVotes = ring.reduce((a, r) => a + r.votes, 0);
  const ringHit = ring.reduce((a, r) => a + r.discounted, 0);
  console.log(`\nrecall over all rings: ${((100 * ringHit) / ringVotes).toFixed(1)} % (target ≥ 95 %)`);
  console.log(`organic votes discounted: ${rows.find((r) => r.shape === 'organic')!.share.toFixed(2)} % (target ≤ 1 %)\n`);
  console.log('| reason | votes discounted | of them ring votes | precision |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const reason of REASON_CODES) {
    const mine = flags.filter((f) => f.reason === reason);
    const ringOnes = mine.filter((f) => shapeOf.get(`${f.listingId}:${f.userId}`) !== 'organic').length;
    const precision = mine.length === 0 ? '–' : `${((100 * ringOnes) / mine.length).toFixed(1)} %`;
    console.log(`| ${reason} | ${mine.length} | ${ringOnes} | ${precision} |`);
  }
  const all = flags.length;
  const allRing = flags.filter((f) => shapeOf.get(`${f.listingId}:${f.userId}`) !== 'organic').length;
  console.log(`| all | ${all} | ${allRing} | ${all ? ((100 * allRing) / all).toFixed(1) : '–'} % |`);
}

main();
