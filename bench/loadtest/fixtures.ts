/**
 * What the load test's traffic needs besides the seeded listings: accounts with all-scope API
 * keys owning some of the listings (edits, quotes, checkouts), unowned listings of their own
 * domains to claim, a loopback company website to draft from, and a DNS server to publish the
 * claims' TXT records on.
 */
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createUser } from '../../src/auth/users.ts';
import type { Db } from '../../src/db/knex.ts';
import { startExampleSite } from '../../examples/company-site/server.ts';
import { ALL_SCOPES } from '../../test/helpers/env.ts';
import { startTestDns, type TestDns } from '../../test/helpers/dns-server.ts';

export interface Fixtures {
  /** One listing per entry, owned by the account whose key is given. */
  owned: { key: string; listingId: number }[];
  /** Slugs of unowned listings, each at a domain of its own, claimed one after the other. */
  claimable: string[];
  /** Slug of any seeded listing. */
  randomSlug(): string;
  siteUrl: string;
  dns: TestDns;
  webhookSecret: string;
  close(): Promise<void>;
}

export interface FixtureCounts {
  accounts: number;
  ownedPerAccount: number;
  /** Seeded listings `bench-1` … `bench-{listings}`. */
  listings: number;
}

/** Accounts own `bench-1` … `bench-{accounts × ownedPerAccount}`; the rest can be claimed. */
export async function prepareFixtures(db: Db, counts: FixtureCounts, webhookSecret: string): Promise<Fixtures> {
  const owned: Fixtures['owned'] = [];
  for (let a = 0; a < counts.accounts; a++) {
    const user = await createUser(db, `load-${a}@example.com`);
    const { key } = await createApiKey(db, user.id, 'load test', ALL_SCOPES);
    const slugs = Array.from({ length: counts.ownedPerAccount }, (_, i) => `bench-${1 + a * counts.ownedPerAccount + i}`);
    const ids = (await db('listings').whereIn('slug', slugs).update({ owner_id: user.id }).returning('id')) as { id: number }[];
    for (const { id } of ids) owned.push({ key, listingId: id });
  }
  const firstClaimable = counts.accounts * counts.ownedPerAccount + 1;
  const claimable = Array.from({ length: counts.listings - firstClaimable + 1 }, (_, i) => `bench-${firstClaimable + i}`);
  const [site, dns] = await Promise.all([startExampleSite(), startTestDns()]);
  return {
    owned,
    claimable,
    randomSlug: () => `bench-${1 + Math.floor(Math.random() * counts.listings)}`,
    siteUrl: site.url,
    dns,
    webhookSecret,
    async close() {
      await Promise.all([site.close(), dns.close()]);
    },
  };
}
