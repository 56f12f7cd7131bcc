import { Resolver } from 'node:dns/promises';
import { DNS_VALUE_PREFIX } from './instructions.ts';
import { outcome, quoted, type CheckResult } from './check-result.ts';

export interface DnsCheckOptions {
  /** host:port of the servers to ask; empty: the system's. */
  servers: string[];
  /** Per-try time-out in milliseconds. @default 3000 */
  timeoutMs?: number;
}

/** Answers that mean "there is no such record" (everything else is a transient error). */
const NOT_FOUND_CODES = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Looks up the TXT records at `name`; found when one of them (its strings joined, as RFC 7208
 * joins SPF strings) is exactly `listing-directory-verification={token}`. CNAMEs are followed
 * by the resolver. SERVFAIL, refusals and time-outs are `error`, not `not_found`.
 */
export async function checkDnsRecord(name: string, token: string, options: DnsCheckOptions): Promise<CheckResult> {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 3000, tries: 2 });
  if (options.servers.length > 0) resolver.setServers(options.servers);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
    if (NOT_FOUND_CODES.has(code)) return outcome('not_found', `No TXT record at ${name} (${code}).`);
    return outcome('error', `The DNS lookup of ${name} failed (${code}); we try again later.`);
  }
  const values = records.map((strings) => strings.join(''));
  const expected = `${DNS_VALUE_PREFIX}${token}`;
  if (values.some((v) => v.trim() === expected)) return outcome('found', `TXT record ${quoted(expected)} found at ${name}.`);
  if (values.length === 0) return outcome('not_found', `No TXT record at ${name}.`);
  return outcome(
    'not_found',
    `TXT records at ${name}: ${values
      .slice(0, 5)
      .map((v) => quoted(v))
      .join(', ')}; none is ${quoted(expected)}.`,
  );
}
