import { BlockList, isIP } from 'node:net';
import type { Subnet } from '@foresight/platform';

const v4 = (network: string, prefix: number): Subnet => ({ network, prefix, type: 'ipv4' });
const v6 = (network: string, prefix: number): Subnet => ({ network, prefix, type: 'ipv6' });

/**
 * Never contacted, whatever WEBHOOK_ALLOWED_NETWORKS says: link-local (where cloud metadata services
 * live), the metadata addresses themselves, "this network", multicast and reserved space.
 */
const ALWAYS_REFUSED: readonly Subnet[] = [
  v4('0.0.0.0', 8),
  v4('169.254.0.0', 16),
  v4('100.100.100.200', 32), // Alibaba Cloud metadata, inside the carrier-grade NAT range
  v4('224.0.0.0', 4),
  v4('240.0.0.0', 4),
  v6('::', 128),
  v6('fe80::', 10),
  v6('fd00:ec2::254', 128), // AWS metadata over IPv6, inside the unique-local range
  v6('ff00::', 8),
];

/** Internal networks: refused unless an operator lists them (on-premises receivers usually live there). */
const PRIVATE: readonly Subnet[] = [
  v4('127.0.0.0', 8),
  v4('10.0.0.0', 8),
  v4('172.16.0.0', 12),
  v4('192.168.0.0', 16),
  v4('100.64.0.0', 10),
  v6('::1', 128),
  v6('fc00::', 7),
];

function blockList(subnets: readonly Subnet[]): BlockList {
  const list = new BlockList();
  for (const { network, prefix, type } of subnets) list.addSubnet(network, prefix, type);
  return list;
}

/**
 * Which addresses a webhook may be delivered to. Checked on every address a receiver's name resolves
 * to, at delivery time, and the connection goes to the checked address (no DNS rebinding window).
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) match the IPv4 rules (node:net BlockList does that).
 */
export class AddressPolicy {
  private readonly refused = blockList(ALWAYS_REFUSED);
  private readonly internal = blockList(PRIVATE);
  private readonly allowed: BlockList;

  constructor(allowedNetworks: readonly Subnet[]) {
    this.allowed = blockList(allowedNetworks);
  }

  /** Why an address must not be contacted, or null when it may be. */
  refusal(address: string): string | null {
    const family = isIP(address);
    if (family === 0) return `${address} is not an IP address`;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.refused.check(address, type)) return `${address} is a link-local, metadata or reserved address`;
    if (this.internal.check(address, type) && !this.allowed.check(address, type)) {
      return `${address} is in a private network that WEBHOOK_ALLOWED_NETWORKS does not list`;
    }
    return null;
  }
}

/** The address of a URL whose host is an IP literal (`[::1]` without brackets), or null for a name. */
export function ipLiteral(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}
