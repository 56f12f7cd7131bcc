import type { Knex } from 'knex';
import { parse } from 'tldts';

const BATCH = 1000;

/**
 * Company identity by the public suffix list *with its private section*: each
 * listing's `company_domain` is recomputed by the rule of domain/company.ts as it stood then, so a.github.io and
 * b.github.io (once both "github.io") are two companies, and a website given by an IP address is
 * one company per address and port. The new keys are only finer than the old ones, so no listing
 * joins another's company; listings that already shared one (owners could list a company twice
 * before the rule) stay as they are: the rule guards new listings with a lock, not a unique
 * index, and support merges old duplicates by hand. The lookup index becomes (company, site).
 */
export async function up(db: Knex): Promise<void> {
  await recomputeCompanyKeys(db);
  await db.schema.alterTable('listings', (t) => {
    t.dropIndex(['company_domain']);
    t.index(['company_domain', 'site_id'], 'listings_company_site');
  });
}

/** Rewrites every listing's company key that the rule now says differently; returns how many changed. */
export async function recomputeCompanyKeys(db: Knex): Promise<number> {
  let after = 0;
  let changedCount = 0;
  for (;;) {
    const rows: { id: number; url: string; company_domain: string }[] = await db('listings')
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .select('id', 'url', 'company_domain');
    if (rows.length === 0) return changedCount;
    after = rows[rows.length - 1]!.id;
    const changed = rows.flatMap((r) => {
      const key = keyOf(r.url);
      return key !== null && key !== r.company_domain ? [[r.id, key] as const] : [];
    });
    if (changed.length === 0) continue;
    await db.raw(
      `UPDATE listings l SET company_domain = v.key
       FROM (VALUES ${changed.map(() => '(?::int, ?::text)').join(', ')}) AS v(id, key) WHERE l.id = v.id`,
      changed.flat(),
    );
    changedCount += changed.length;
  }
}

export async function down(db: Knex): Promise<void> {
  // The finer keys stay: the coarser rule they replaced is gone from the code.
  await db.schema.alterTable('listings', (t) => {
    t.dropIndex([], 'listings_company_site');
    t.index(['company_domain']);
  });
}

/** The key of a stored website; null (left as it is) for a value that is no URL. */
function keyOf(url: string): string | null {
  try {
    return companyKeyAsOf021(url);
  } catch {
    return null;
  }
}

/**
 * A frozen copy of domain/company.ts's companyKey as this migration introduced it. A migration
 * means one change at one point of history: should the domain's rule move on, a fresh database
 * still passes through this step as it ran everywhere else, and the new rule comes with a
 * migration of its own. It also keeps db/ below the domain (lint rule lower-layers-know-no-upper).
 */
function companyKeyAsOf021(url: string): string {
  const u = new URL(url);
  const host = u.hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  const domain = parse(host, { allowPrivateDomains: true }).domain;
  if (domain) return domain;
  const port = u.port || (u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '');
  return `${u.hostname.toLowerCase().replace(/\.$/, '')}:${port}`;
}
