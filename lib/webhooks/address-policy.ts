/**
 * Where a webhook may be delivered (CONTRACT §12): an `https` URL whose host resolves only to public
 * addresses. An address is judged by `ipaddr.js`'s ranges, which follow IANA's special-purpose
 * registries: only `unicast` (globally reachable) is allowed. Loopback, private, shared (CGNAT),
 * link-local (the metadata service's 169.254.169.254 among them), unique local (AWS's IPv6 metadata
 * address among them), site-local, multicast, reserved, documentation, benchmarking, ORCHID, Teredo,
 * segment routing... are refused. An IPv6 address that carries an IPv4 one (mapped, SIIT, NAT64's
 * well-known prefix, 6to4) is judged by the address it carries; local-use NAT64 (RFC 8215) is
 * refused whatever it carries. The WHATWG URL parser has already turned decimal, hex and octal
 * spellings of an IPv4 host into a dotted quad. A deployment may allow `http` and the loopback
 * addresses 127.0.0.1 and ::1 (`npm start`, tests), nothing more.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** IPv6 ranges that carry an IPv4 address, and where: the offset of its four bytes. */
const CARRIED_AT: Readonly<Record<string, number>> = { ipv4Mapped: 12, rfc6145: 12, rfc6052: 12, '6to4': 2 };

/** The IPv4 address an IPv6 one carries, when its range carries one; `refused` for local-use NAT64, whose mapping is the network's own. */
function carriedIPv4(address: ipaddr.IPv6): string | 'refused' | undefined {
  const offset = CARRIED_AT[address.range()];
  if (offset === undefined) return undefined;
  const bytes = address.toByteArray();
  // 64:ff9b::/96 carries it in its last 4 bytes; 64:ff9b:1::/48 (RFC 8215) is for local use.
  if (address.range() === 'rfc6052' && bytes.slice(4, 12).some((byte) => byte !== 0)) return 'refused';
  return bytes.slice(offset, offset + 4).join('.');
}

export interface AddressOptions {
  /** `http` and the loopback addresses 127.0.0.1 and ::1 allowed (npm start, tests). */
  allowLoopback?: boolean;
}

/** Whether a webhook may be delivered to this IP address. */
export function isAllowedAddress(address: string, options: AddressOptions = {}): boolean {
  if (options.allowLoopback && (address === '127.0.0.1' || address === '::1')) return true;
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
  if (url.protocol !== 'https:' && !(options.allowLoopback && url.protocol === 'http:')) throw new AddressRefused('must be https');
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
  const [first] = addresses;
  return { url, address: first!.address, family: first!.family === 6 ? 6 : 4 };
}
