/**
 * Where a webhook may be delivered (CONTRACT §12): an `https` URL whose host resolves only to public
 * addresses. Refused: loopback, private, shared (CGNAT), link-local (the metadata service's
 * 169.254.169.254 among them), multicast, reserved and documentation ranges, the unspecified
 * address, AWS's IPv6 metadata address, and an IPv4 address inside an IPv6 one (mapped, NAT64,
 * 6to4) by the address it holds. The WHATWG URL parser has already turned decimal, hex and octal
 * spellings of an IPv4 host into a dotted quad. A deployment may allow `http` and the loopback
 * addresses 127.0.0.1 and ::1 (`npm start`, tests), nothing more.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIPv4, isIPv6 } from 'node:net';

const refusedV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refusedV4.addSubnet(network, prefix, 'ipv4');
}

const refusedV6 = new BlockList();
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 32], // Teredo: its IPv4 address is obfuscated
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local, AWS's fd00:ec2::254 included
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  refusedV6.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address. */
function bytesOf(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const groups = (part: string): number[] => {
    if (!part) return [];
    const pieces = part.split(':');
    const last = pieces.at(-1)!;
    // A dotted IPv4 ending (::ffff:1.2.3.4) is two groups.
    const words = isIPv4(last) ? [...pieces.slice(0, -1).map((p) => parseInt(p, 16)), ...(([a, b, c, d]) => [(a! << 8) | b!, (c! << 8) | d!])(last.split('.').map(Number))] : pieces.map((p) => parseInt(p, 16));
    return words;
  };
  const [before, after] = [groups(head), groups(tail ?? '')];
  const words = tail === undefined ? before : [...before, ...Array(8 - before.length - after.length).fill(0), ...after];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

/** The IPv4 address an IPv6 one carries, when it carries one (mapped, NAT64, 6to4, IPv4-compatible). */
function embeddedIPv4(address: string): string | undefined {
  const b = bytesOf(address);
  const quad = (offset: number) => b.slice(offset, offset + 4).join('.');
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return quad(12); // ::ffff:a.b.c.d
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return quad(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2); // 2002:aabb:ccdd::/48
  if (zero(0, 12) && !zero(12, 16)) return quad(12); // ::a.b.c.d (deprecated)
  return undefined;
}

export interface AddressOptions {
  /** `http` and the loopback addresses 127.0.0.1 and ::1 allowed (npm start, tests). */
  allowLoopback?: boolean;
}

/** Whether a webhook may be delivered to this IP address. */
export function isAllowedAddress(address: string, options: AddressOptions = {}): boolean {
  if (options.allowLoopback && (address === '127.0.0.1' || address === '::1')) return true;
  if (isIPv4(address)) return !refusedV4.check(address, 'ipv4');
  if (!isIPv6(address)) return false;
  const v4 = embeddedIPv4(address);
  if (v4 !== undefined) return isAllowedAddress(v4, { ...options, allowLoopback: false });
  return !refusedV6.check(address, 'ipv6');
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

/** Parses and checks a webhook URL, resolving its host; AddressRefused says why not. */
export async function checkWebhookUrl(text: string, options: AddressOptions = {}): Promise<CheckedTarget> {
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
  if (isIPv4(host) || isIPv6(host)) addresses = [{ address: host, family: isIPv4(host) ? 4 : 6 }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new AddressRefused('does not resolve');
    }
  }
  // Every address the name has must be allowed: a resolver may answer with any of them.
  if (addresses.length === 0 || !addresses.every(({ address }) => isAllowedAddress(address, options))) throw new AddressRefused('address not allowed');
  const [first] = addresses;
  return { url, address: first!.address, family: first!.family === 6 ? 6 : 4 };
}
