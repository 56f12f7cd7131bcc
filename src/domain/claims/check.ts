import type { Db } from '../../db/knex.ts';
import type { CrawlOptions } from '../crawl/types.ts';
import type { CheckResult } from './check-result.ts';
import { getClaim, type ClaimStatus } from './claims.ts';
import { checkDnsRecord } from './dns-check.ts';
import { claimTargets } from './instructions.ts';
import { recordCheck, type CheckTrigger } from './verify.ts';
import { checkMetaTag, checkVerificationFile } from './web-check.ts';

export interface ClaimCheckDeps {
  db: Db;
  crawl: CrawlOptions;
  dnsServers: string[];
  baseUrl: string;
  /** A claim found after it expired is not verified: expiry is decided at this instant. */
  now: Date;
}

export interface ClaimCheckReport {
  status: ClaimStatus;
  /** Null when nothing was checked (the claim is closed, or it is verified by the emailed link). */
  check: CheckResult | null;
  mailIds: number[];
  canceledClaimIds: number[];
}

/** Checks a pending dns/meta/file claim once and records the check (which may verify it). */
export async function checkClaimNow(deps: ClaimCheckDeps, claimId: number, trigger: CheckTrigger): Promise<ClaimCheckReport> {
  const claim = await getClaim(deps.db, claimId);
  // Gone with its listing: nothing to check, and the workflow may end.
  if (!claim) return { status: 'canceled', check: null, mailIds: [], canceledClaimIds: [] };
  if (claim.status !== 'pending' || claim.method === 'email')
    return { status: claim.status, check: null, mailIds: [], canceledClaimIds: [] };
  const where = claimTargets(claim.listing_url);
  let check: CheckResult;
  switch (claim.method) {
    case 'dns':
      check = await checkDnsRecord(where.dnsName, claim.token, { servers: deps.dnsServers });
      break;
    case 'meta':
      check = await checkMetaTag(where.homepage, claim.token, deps.crawl);
      break;
    case 'file':
      check = await checkVerificationFile(where.fileUrl, claim.token, deps.crawl);
      break;
  }
  const recorded = await recordCheck(deps.db, claimId, trigger, check, deps.baseUrl, deps.now);
  return { ...recorded, check };
}
