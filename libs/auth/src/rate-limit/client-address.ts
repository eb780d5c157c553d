import ipaddr from 'ipaddr.js';

/**
 * The bucket of a client address for the unauthenticated rate limit. An IPv6 client usually holds a
 * whole /64 (and picks addresses in it freely), so the /64 is the client; an IPv4-mapped IPv6
 * address is its IPv4 address.
 */
export function clientAddressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const network = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(':')}::/64`;
}
