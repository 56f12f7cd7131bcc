import dns from 'node:dns/promises';
import { appError } from '../../errors/errors.ts';
import { parseHttpUrl } from '../../lib/urls.ts';
import { addressRange, addressRefusedError, isAddressAllowed, isIpLiteral, stripBrackets } from './address-guard.ts';

const invalidUrl = (detail: string) => appError('invalid_url', detail);
const refused = (detail: string) => appError('address_refused', detail);

/**
 * Checks a submitted website URL before a crawl is queued: only http(s), no credentials, and
 * no host that is (or resolves to) an address the crawler refuses. A failing DNS lookup is not
 * an error here: the crawl then fails with `dns_failure`, reported on the draft.
 */
export async function assertCrawlableUrl(url: string, allowPrivateNetworks: boolean): Promise<void> {
  const parsed = parseHttpUrl(url);
  if (!parsed) throw invalidUrl(`"${url}" is not an http or https address without a user name or password.`);
  const host = parsed.hostname;
  if (isIpLiteral(host)) {
    const address = stripBrackets(host);
    if (!isAddressAllowed(address, allowPrivateNetworks)) {
      throw refused(addressRefusedError(address, address, addressRange(address)).message);
    }
    return;
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await dns.lookup(host, { all: true });
  } catch {
    return; // reported by the crawl as dns_failure
  }
  for (const { address } of addresses) {
    if (!isAddressAllowed(address, allowPrivateNetworks)) {
      throw refused(addressRefusedError(host, address, addressRange(address)).message);
    }
  }
}
