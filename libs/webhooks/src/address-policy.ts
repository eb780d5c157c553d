import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Subnet } from '@foresight/platform';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * Where an address belongs. `public`: globally reachable. `internal`: not globally reachable, contacted
 * only when WEBHOOK_ALLOWED_NETWORKS lists it (on-premises receivers live in such networks). `refused`:
 * never contacted, whatever the allow-list says.
 */
export type AddressClass = { kind: 'public' } | { kind: 'internal' | 'refused'; range: string };

/**
 * IPv4 ranges of the IANA special-purpose registry as ipaddr.js names them. The registry's globally
 * reachable entries (AS112, AMT) are public; 240.0.0.0/4 and the metadata address are picked out of
 * "reserved" and the carrier-grade NAT range below. Anything not listed here is internal.
 */
const IPV4_PUBLIC = new Set(['unicast', 'as112', 'amt']);
/** Link-local (where cloud metadata services live), "this network", multicast and broadcast. */
const IPV4_REFUSED = new Set(['unspecified', 'broadcast', 'multicast', 'linkLocal']);
const IPV4_REFUSED_SUBNETS: ReadonlyArray<[string, string]> = [
  ['240.0.0.0/4', 'reserved'],
  ['100.100.100.200/32', 'metadata'], // Alibaba Cloud metadata, inside the carrier-grade NAT range
];

/** IPv6: only global unicast (2000::/3) can be public, minus the special-purpose blocks inside it. */
const IPV6_PUBLIC = new Set(['unicast', 'amt', 'as112v6', 'orchid2', 'droneRemoteIdProtocolEntityTags']);
const IPV6_REFUSED = new Set(['unspecified', 'linkLocal', 'multicast']);
const IPV6_REFUSED_SUBNETS: ReadonlyArray<[string, string]> = [['fd00:ec2::254/128', 'metadata']]; // AWS metadata over IPv6, inside the unique-local range
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
/** IPv4-compatible addresses (::a.b.c.d, deprecated), apart from :: and ::1 which have their own entries. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];

const parsedSubnets = <T extends Address>(subnets: ReadonlyArray<[string, string]>) =>
  subnets.map(([cidr, range]) => ({ cidr: ipaddr.parseCIDR(cidr) as [T, number], range }));
const IPV4_REFUSED_PARSED = parsedSubnets<ipaddr.IPv4>(IPV4_REFUSED_SUBNETS);
const IPV6_REFUSED_PARSED = parsedSubnets<ipaddr.IPv6>(IPV6_REFUSED_SUBNETS);

const ipv4 = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as ipaddr.IPv4;

/**
 * The IPv4 addresses an IPv6 address carries, for the forms that reach them: IPv4-mapped and
 * -translated (RFC 6145), IPv4-compatible, NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo (server,
 * and the obfuscated client). Null when the address embeds none.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = address.parts;
  const range = address.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && p[2] === 0)) return [ipv4(p[6], p[7])];
  if (address.match(IPV4_COMPATIBLE) && range !== 'unspecified' && range !== 'loopback') return [ipv4(p[6], p[7])];
  if (range === '6to4') return [ipv4(p[1], p[2])];
  if (range === 'teredo') return [ipv4(p[2], p[3]), ipv4(~p[6] & 0xffff, ~p[7] & 0xffff)];
  return null;
}

function classifyIPv4(address: ipaddr.IPv4): AddressClass {
  const picked = IPV4_REFUSED_PARSED.find(({ cidr }) => address.match(cidr));
  if (picked) return { kind: 'refused', range: picked.range };
  const range = address.range();
  if (IPV4_REFUSED.has(range)) return { kind: 'refused', range };
  return IPV4_PUBLIC.has(range) ? { kind: 'public' } : { kind: 'internal', range };
}

function classifyIPv6(address: ipaddr.IPv6): AddressClass {
  const picked = IPV6_REFUSED_PARSED.find(({ cidr }) => address.match(cidr));
  if (picked) return { kind: 'refused', range: picked.range };
  const range = address.range();
  if (IPV6_REFUSED.has(range)) return { kind: 'refused', range };
  if (range === 'rfc6052') return { kind: 'internal', range: 'local-use NAT64' }; // 64:ff9b:1::/48: the IPv4 sits where the operator chose
  if (!address.match(GLOBAL_UNICAST)) return { kind: 'internal', range: range === 'unicast' ? 'not global unicast' : range };
  return IPV6_PUBLIC.has(range) ? { kind: 'public' } : { kind: 'internal', range };
}

/** An address as judged: itself, or each IPv4 address an IPv6 form carries. */
interface Judged {
  address: string;
  type: 'ipv4' | 'ipv6';
  verdict: AddressClass;
}

function judge(address: string): Judged[] | null {
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return null;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return [{ address: parsed.toString(), type: 'ipv4', verdict: classifyIPv4(parsed as ipaddr.IPv4) }];
  const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
  if (embedded) return embedded.map((v4) => ({ address: v4.toString(), type: 'ipv4', verdict: classifyIPv4(v4) }));
  return [{ address: parsed.toString(), type: 'ipv6', verdict: classifyIPv6(parsed as ipaddr.IPv6) }];
}

function blockList(subnets: readonly Subnet[]): BlockList {
  const list = new BlockList();
  for (const { network, prefix, type } of subnets) list.addSubnet(network, prefix, type);
  return list;
}

/**
 * Which addresses a webhook may be delivered to, after the IANA IPv4 and IPv6 special-purpose
 * registries. Checked on every address a receiver's name resolves to, at delivery time, and the
 * connection goes to the checked address (no DNS rebinding window). An IPv6 form that carries an IPv4
 * address (mapped, compatible, NAT64, 6to4, Teredo) is judged by that IPv4 address, allow-list included.
 */
export class AddressPolicy {
  private readonly allowed: BlockList;

  constructor(allowedNetworks: readonly Subnet[]) {
    this.allowed = blockList(allowedNetworks);
  }

  /** Why an address must not be contacted, or null when it may be. */
  refusal(address: string): string | null {
    const judged = judge(address);
    if (judged === null) return `${address} is not an IP address`;
    for (const { verdict } of judged) {
      if (verdict.kind === 'refused') return `${address} is a link-local, metadata or reserved address (${verdict.range})`;
    }
    for (const { address: checked, type, verdict } of judged) {
      if (verdict.kind === 'internal' && !this.allowed.check(checked, type)) {
        return `${address} is in a private or special-purpose network (${verdict.range}) that WEBHOOK_ALLOWED_NETWORKS does not list`;
      }
    }
    return null;
  }

  /** True unless the address is public: errors from a receiver there must say nothing about the network (no port scanner). */
  isInternal(address: string): boolean {
    return judge(address)?.every(({ verdict }) => verdict.kind === 'public') !== true;
  }
}

/** The address of a URL whose host is an IP literal (`[::1]` without brackets), or null for a name. */
export function ipLiteral(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}
