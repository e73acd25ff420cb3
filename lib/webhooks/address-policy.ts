/**
 * Where a webhook may be delivered (docs/changes-events-webhooks.md): an `https` URL whose host resolves only to public
 * addresses. An address is judged by `ipaddr.js`'s ranges, which follow IANA's special-purpose
 * registries: only `unicast` (globally reachable) is allowed. Loopback, private, shared (CGNAT),
 * link-local (the metadata service's 169.254.169.254 among them), unique local (AWS's IPv6 metadata
 * address among them), site-local, multicast, reserved, documentation, benchmarking, ORCHID, Teredo,
 * segment routing... are refused. An IPv6 address that carries an IPv4 one (mapped, compatible, SIIT,
 * NAT64's well-known prefix, 6to4, ISATAP) is judged by the address it carries; local-use NAT64 (RFC 8215) is
 * refused whatever it carries. The WHATWG URL parser has already turned decimal, hex and octal
 * spellings of an IPv4 host into a dotted quad. A deployment may allow `http` and the loopback
 * addresses 127.0.0.1 and ::1 (`npm start`, tests), nothing more.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** IPv6 ranges that carry an IPv4 address, and where: the offset of its four bytes. */
const CARRIED_AT: Readonly<Record<string, number>> = { ipv4Mapped: 12, rfc6145: 12, rfc6052: 12, '6to4': 2 };

/** An ISATAP interface identifier (RFC 5214): `0000:5efe` or `0200:5efe`, then the IPv4 address, in any prefix. */
const isIsatap = (bytes: number[]): boolean => (bytes[8] === 0x00 || bytes[8] === 0x02) && bytes[9] === 0x00 && bytes[10] === 0x5e && bytes[11] === 0xfe;

/**
 * The IPv4 address an IPv6 one carries, when its form carries one; `refused` for local-use NAT64,
 * whose mapping is the network's own. Besides the ranges ipaddr.js names, IPv4-compatible addresses
 * (`::/96`, deprecated by RFC 4291 but still routed to the IPv4 address by some stacks; ipaddr.js
 * calls them unicast) and ISATAP identifiers carry their IPv4 address in their last four bytes.
 */
function carriedIPv4(address: ipaddr.IPv6): string | 'refused' | undefined {
  const bytes = address.toByteArray();
  const range = address.range();
  if (range === 'unspecified' || range === 'loopback') return undefined;
  // An ISATAP address of a range that is refused anyway (link-local, documentation...) stays refused by its range.
  if (bytes.slice(0, 12).every((byte) => byte === 0) || (range === 'unicast' && isIsatap(bytes))) return bytes.slice(12).join('.');
  const offset = CARRIED_AT[range];
  if (offset === undefined) return undefined;
  // 64:ff9b::/96 carries it in its last 4 bytes; 64:ff9b:1::/48 (RFC 8215) is for local use.
  if (address.range() === 'rfc6052' && bytes.slice(4, 12).some((byte) => byte !== 0)) return 'refused';
  return bytes.slice(offset, offset + 4).join('.');
}

/** The loopback addresses a deployment may allow, `http` included: nothing else of 127.0.0.0/8. */
const LOOPBACK = new Set(['127.0.0.1', '::1']);

export interface AddressOptions {
  /** `http` and the loopback addresses 127.0.0.1 and ::1 allowed (npm start, tests). */
  allowLoopback?: boolean;
}

/** Whether a webhook may be delivered to this IP address. */
export function isAllowedAddress(address: string, options: AddressOptions = {}): boolean {
  if (options.allowLoopback && LOOPBACK.has(address)) return true;
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const carried = carriedIPv4(parsed as ipaddr.IPv6);
    if (carried === 'refused') return false;
    if (carried !== undefined) return isAllowedAddress(carried, { ...options, allowLoopback: false });
  }
  return parsed.range() === 'unicast';
}

export class AddressRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'AddressRefused';
  }
}

/** A URL checked for delivery, and the address to connect to (the one checked: no second lookup). */
export interface CheckedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** The host's addresses, unless `signal` aborts first (an attempt's time covers its name's resolution). */
async function resolve(host: string, signal: AbortSignal | undefined): Promise<Array<{ address: string; family: number }>> {
  if (!signal) return lookup(host, { all: true, verbatim: true });
  signal.throwIfAborted();
  let stop: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: true }), aborted]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/**
 * Parses and checks a webhook URL, resolving its host within `signal`'s time; AddressRefused says
 * why not (an abort comes out as the signal's reason).
 */
export async function checkWebhookUrl(text: string, options: AddressOptions = {}, signal?: AbortSignal): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AddressRefused('is not a URL');
  }
  const plainHttp = url.protocol === 'http:';
  if (url.protocol !== 'https:' && !(options.allowLoopback && plainHttp)) throw new AddressRefused('must be https');
  if (url.username || url.password) throw new AddressRefused('must not hold a user name or password');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: ipaddr.parse(host).kind() === 'ipv4' ? 4 : 6 }];
  else {
    try {
      addresses = await resolve(host, signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new AddressRefused('does not resolve');
    }
  }
  // Every address the name has must be allowed: a resolver may answer with any of them.
  if (addresses.length === 0 || !addresses.every(({ address }) => isAllowedAddress(address, options))) throw new AddressRefused('address not allowed');
  // Where `http` is allowed at all, it is for this machine's own receivers only: nowhere else does a delivery travel unencrypted.
  if (plainHttp && !addresses.every(({ address }) => LOOPBACK.has(address))) throw new AddressRefused('must be https (http is allowed only to 127.0.0.1 and ::1)');
  const [first] = addresses;
  if (!first) throw new AddressRefused('does not resolve');
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
