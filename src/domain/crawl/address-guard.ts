import dns from 'node:dns';
import ipaddr from 'ipaddr.js';

/** Ranges that are always connectable. */
const PUBLIC_RANGES = new Set(['unicast']);
/** Ranges also connectable when private networks are allowed (development and tests). */
const PRIVATE_RANGES = new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat']);

/** Marker code set on errors raised when an address is refused. */
export const ADDRESS_REFUSED_CODE = 'ECRAWL_ADDRESS_REFUSED';

export interface AddressRefusedError extends Error {
  code: typeof ADDRESS_REFUSED_CODE;
  address: string;
  range: string;
}

export function isAddressRefusedError(err: unknown): err is AddressRefusedError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === ADDRESS_REFUSED_CODE;
}

/**
 * The refusal of `address` (`host` resolved to it). The message names the address only when the
 * caller gave it: what a host name resolves to is never told (it maps our internal network);
 * `address` stays on the error for our logs.
 */
export function addressRefusedError(host: string, address: string, range: string): AddressRefusedError {
  const err = new Error(
    host === address
      ? `The address ${address} is a ${describeRange(range)} address, which the crawler does not connect to.`
      : `${host} resolves to a ${describeRange(range)} address, which the crawler does not connect to.`,
  ) as AddressRefusedError;
  err.code = ADDRESS_REFUSED_CODE;
  err.address = address;
  err.range = range;
  return err;
}

function describeRange(range: string): string {
  switch (range) {
    case 'linkLocal':
      return 'link-local';
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'uniqueLocal':
      return 'private-network';
    case 'carrierGradeNat':
      return 'carrier-grade NAT';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    case 'invalid':
      return 'invalid';
    case 'ipv4Compatible':
      return 'deprecated IPv4-compatible IPv6';
    default:
      return 'reserved or special-use';
  }
}

/** The special-use range of an IP address ('unicast' for ordinary public addresses), or 'invalid'. */
export function addressRange(address: string): string {
  const bare = canonical(stripBrackets(address));
  if (!ipaddr.isValid(bare)) return 'invalid';
  try {
    if (isIpv4Compatible(ipaddr.parse(bare))) return 'ipv4Compatible';
    return ipaddr.process(bare).range();
  } catch {
    return 'invalid';
  }
}

/**
 * IPv6 in WHATWG URL's canonical form (`::127.0.0.1` → `::7f00:1`): ipaddr.js reads a dotted
 * tail after `::` as IPv4-mapped (`::ffff:`), which would judge `::127.0.0.1` by its IPv4 part.
 */
function canonical(address: string): string {
  if (!address.includes(':')) return address;
  try {
    return stripBrackets(new URL(`http://[${address}]/`).hostname);
  } catch {
    return address;
  }
}

/**
 * Whether an IPv6 address lies in `::/96` (RFC 4291's deprecated IPv4-compatible addresses, e.g.
 * `::127.0.0.1` = `::7f00:1`) other than `::` and `::1`. Some stacks route them to the embedded
 * IPv4 address, so the whole range is reserved rather than judged by its last 32 bits.
 */
function isIpv4Compatible(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() !== 'ipv6') return false;
  const parts = (address as ipaddr.IPv6).parts;
  if (parts.slice(0, 6).some((part) => part !== 0)) return false;
  return parts[6] !== 0 || parts[7]! > 1;
}

/** Whether the crawler may connect to this IP address. */
export function isAddressAllowed(address: string, allowPrivateNetworks: boolean): boolean {
  const range = addressRange(address);
  if (PUBLIC_RANGES.has(range)) return true;
  return allowPrivateNetworks && PRIVATE_RANGES.has(range);
}

export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Whether a URL hostname is an IP literal (IPv4 or bracketed IPv6). */
export function isIpLiteral(hostname: string): boolean {
  return ipaddr.isValid(stripBrackets(hostname)) && (hostname.startsWith('[') || ipaddr.IPv4.isValidFourPartDecimal(hostname));
}

/** Throws an AddressRefusedError when `hostname` is an IP literal the guard refuses. */
export function checkIpLiteral(hostname: string, allowPrivateNetworks: boolean): void {
  if (!isIpLiteral(hostname)) return;
  const address = stripBrackets(hostname);
  if (!isAddressAllowed(address, allowPrivateNetworks)) {
    throw addressRefusedError(address, address, addressRange(address));
  }
}

type LookupAddress = { address: string; family: number };
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net.connect / undici's `connect` option: resolves with dns.lookup and
 * refuses addresses the guard does not allow, so the check happens at connect time.
 */
export function createGuardedLookup(allowPrivateNetworks: boolean) {
  return function guardedLookup(hostname: string, options: dns.LookupOptions | LookupCallback, callback?: LookupCallback): void {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts: dns.LookupOptions = typeof options === 'function' ? {} : { ...options };
    const wantAll = opts.all === true;
    dns.lookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return cb(err, wantAll ? [] : '', undefined);
      const list = addresses as LookupAddress[];
      if (list.length === 0) {
        const e = new Error(`${hostname} has no addresses`) as NodeJS.ErrnoException;
        e.code = 'ENOTFOUND';
        return cb(e, wantAll ? [] : '', undefined);
      }
      for (const a of list) {
        if (!isAddressAllowed(a.address, allowPrivateNetworks)) {
          return cb(addressRefusedError(hostname, a.address, addressRange(a.address)), wantAll ? [] : '', undefined);
        }
      }
      if (wantAll) return cb(null, list);
      const first = list[0]!;
      cb(null, first.address, first.family);
    });
  };
}
