import { HOUR_MS, type Detection, type VoteWeek } from './types.ts';

/** Accounts from one network that always count on one listing (an office, a family, a meetup). */
export const NETWORK_ALLOWANCE = 5;
/** Accounts created within this span of each other count as "created close together". */
export const CREATED_TOGETHER_MS = 24 * HOUR_MS;

/**
 * `network_cluster`: many accounts created close together voting for the same listing from one
 * network. Per listing and network, the voters' accounts are sorted by creation time; every run
 * of more than NETWORK_ALLOWANCE accounts created within CREATED_TOGETHER_MS of each other is
 * flagged, all of it. Accounts of different ages on one network (an office of long-time members),
 * and at most NETWORK_ALLOWANCE new ones, count.
 */
export function detectNetworkClusters(week: VoteWeek): Detection[] {
  const groups = new Map<string, { userId: number; createdAt: number }[]>();
  for (const v of week.votes) {
    if (v.network === null) continue;
    const key = `${v.listingId}\u0000${v.network}`;
    const group = groups.get(key) ?? [];
    group.push({ userId: v.userId, createdAt: v.accountCreatedAt });
    groups.set(key, group);
  }
  const out: Detection[] = [];
  for (const [key, group] of groups) {
    if (group.length <= NETWORK_ALLOWANCE) continue;
    const listingId = Number(key.slice(0, key.indexOf('\u0000')));
    group.sort((a, b) => a.createdAt - b.createdAt || a.userId - b.userId);
    const flagged = new Set<number>();
    // Two pointers: the window [start, end] holds accounts created within CREATED_TOGETHER_MS.
    let start = 0;
    for (let end = 0; end < group.length; end++) {
      while (group[end].createdAt - group[start].createdAt > CREATED_TOGETHER_MS) start++;
      if (end - start + 1 > NETWORK_ALLOWANCE) for (let i = start; i <= end; i++) flagged.add(i);
    }
    if (flagged.size === 0) continue;
    const detail = `${flagged.size} accounts created within ${CREATED_TOGETHER_MS / HOUR_MS} hours of each other voted from one network (allowance ${NETWORK_ALLOWANCE})`;
    for (const i of [...flagged].sort((a, b) => a - b)) out.push({ listingId, userId: group[i].userId, reason: 'network_cluster', detail });
  }
  return out;
}
