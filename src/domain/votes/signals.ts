import { createHmac } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { isbot } from 'isbot';
import { isoWeekLabel, isoWeekStart } from '../../workflows/contracts/weeks.ts';

/**
 * The signals kept with a vote (to find vote rings), and nothing more: the account's age and how it was
 * confirmed, a keyed hash of the client's network, the user-agent family, the referrer's host
 * and the time. The address itself is never stored: only an HMAC of its /24 (IPv4) or /48
 * (IPv6) network, with a key that changes every ISO week (app secret `vote-network:{week}`), so
 * votes of one week can be compared and nothing links a network across weeks once the key is gone.
 */

/** Where a vote came from, as the transport saw it. */
export interface VoteClient {
  /** The client's address after the trusted proxies (TRUST_PROXY_HOPS), or 'unknown'. */
  ip: string;
  userAgent: string;
  /** The page that sent the visitor to the listing (absolute URL), if any. */
  referrer: string | null;
  /** The service's own host: a referrer on it is no outside referrer. */
  ownHost: string;
}

/** A named 256-bit secret (src/auth/secrets.ts), created on first use. */
export type SecretSource = (name: string) => Promise<Buffer>;

/** The signals of one vote, ready to store. */
export interface VoteSignalValues {
  network_hash: string | null;
  network_key: string;
  ua_family: string;
  referrer_host: string | null;
}

/** Name of the app secret that hashes networks of votes cast at `at`: one key per ISO week. */
export const networkKeyName = (at: Date): string => `vote-network:${isoWeekLabel(isoWeekStart(at))}`;

/** The /24 (IPv4) or /48 (IPv6) network of an address as CIDR text, or null when it is not an address. */
export function networkOf(ip: string): string | null {
  if (!ipaddr.isValid(ip)) return null;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  if (addr.kind() === 'ipv4') {
    const [a, b, c] = (addr as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0/24`;
  }
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 3).map((p) => p.toString(16));
  return `${parts.join(':')}::/48`;
}

/** HMAC-SHA256 of a network with a key, hex (shortened: enough to compare, nothing to reverse). */
export const hashNetwork = (key: Buffer, network: string): string => createHmac('sha256', key).update(network).digest('hex').slice(0, 32);

/** The browser family of a user agent: Chrome, Edge, Firefox, Safari, Opera, bot, other, none. */
export function uaFamily(userAgent: string): string {
  const ua = userAgent.trim();
  if (ua === '') return 'none';
  if (isbot(ua)) return 'bot';
  if (/\bEdg(e|A|iOS)?\//.test(ua)) return 'Edge';
  if (/\b(OPR|Opera)\//.test(ua)) return 'Opera';
  if (/\b(Firefox|FxiOS)\//.test(ua)) return 'Firefox';
  if (/\b(Chrome|CriOS|Chromium)\//.test(ua)) return 'Chrome';
  if (/\bSafari\//.test(ua) && /\bVersion\//.test(ua)) return 'Safari';
  return 'other';
}

/** The host of an outside http(s) referrer, lower case; null for none, a bad URL or the service itself. */
export function referrerHost(referrer: string | null, ownHost: string): string | null {
  if (!referrer) return null;
  let url: URL;
  try {
    url = new URL(referrer);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.toLowerCase();
  const own = ownHost.toLowerCase().replace(/:\d+$/, '');
  return host === '' || host === own ? null : host.slice(0, 253);
}

/** The signals of a vote cast now by `client`. */
export async function voteSignals(client: VoteClient, secret: SecretSource, at: Date): Promise<VoteSignalValues> {
  const keyName = networkKeyName(at);
  const network = networkOf(client.ip);
  return {
    network_hash: network === null ? null : hashNetwork(await secret(keyName), network),
    network_key: keyName,
    ua_family: uaFamily(client.userAgent),
    referrer_host: referrerHost(client.referrer, client.ownHost),
  };
}
