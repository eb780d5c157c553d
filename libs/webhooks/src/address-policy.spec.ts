import { AddressPolicy, ipLiteral } from './address-policy';

describe('AddressPolicy', () => {
  const strict = new AddressPolicy([]);
  const onPremises = new AddressPolicy([
    { network: '127.0.0.0', prefix: 8, type: 'ipv4' },
    { network: '10.0.0.0', prefix: 8, type: 'ipv4' },
    { network: 'fc00::', prefix: 7, type: 'ipv6' },
    // An operator listing link-local must still not open the metadata service.
    { network: '169.254.0.0', prefix: 16, type: 'ipv4' },
  ]);

  it('allows public addresses', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '100.128.0.1']) {
      expect(strict.refusal(address)).toBeNull();
    }
  });

  it('always refuses link-local, metadata and reserved addresses, even when allow-listed', () => {
    const addresses = ['169.254.169.254', '169.254.1.1', 'fe80::1', 'fd00:ec2::254', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::', 'ff02::1', '::ffff:169.254.169.254'];
    for (const address of addresses) {
      expect(strict.refusal(address)).toMatch(/link-local, metadata or reserved/);
      expect(onPremises.refusal(address)).toMatch(/link-local, metadata or reserved/);
    }
  });

  it('refuses private networks unless WEBHOOK_ALLOWED_NETWORKS lists them', () => {
    const addresses = ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1', '::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:7f00:1'];
    for (const address of addresses) expect(strict.refusal(address)).toMatch(/private or special-purpose network/);
    for (const address of ['127.0.0.1', '10.1.2.3', 'fd12:3456::1', '::ffff:7f00:1']) expect(onPremises.refusal(address)).toBeNull();
    for (const address of ['192.168.1.1', '172.16.0.1', '::1']) expect(onPremises.refusal(address)).toMatch(/private or special-purpose network/);
  });

  /**
   * The IANA IPv4 and IPv6 special-purpose address registries, entry by entry, one address from each
   * (https://www.iana.org/assignments/iana-ipv4-special-registry, iana-ipv6-special-registry).
   * `public` for the entries marked globally reachable, `refused` for those never contacted, `internal`
   * for the rest (refused unless allow-listed).
   */
  const IANA: ReadonlyArray<[entry: string, address: string, expected: 'public' | 'internal' | 'refused']> = [
    ['0.0.0.0/8 this network', '0.1.2.3', 'refused'],
    ['0.0.0.0/32 this host', '0.0.0.0', 'refused'],
    ['10.0.0.0/8 private-use', '10.255.0.1', 'internal'],
    ['100.64.0.0/10 shared address space', '100.127.255.254', 'internal'],
    ['127.0.0.0/8 loopback', '127.1.2.3', 'internal'],
    ['169.254.0.0/16 link local', '169.254.169.254', 'refused'],
    ['172.16.0.0/12 private-use', '172.20.0.1', 'internal'],
    ['192.0.0.0/24 IETF protocol assignments', '192.0.0.1', 'internal'],
    ['192.0.0.0/29 DS-Lite', '192.0.0.2', 'internal'],
    ['192.0.0.8/32 IPv4 dummy address', '192.0.0.8', 'internal'],
    ['192.0.0.170/32 NAT64/DNS64 discovery', '192.0.0.170', 'internal'],
    ['192.0.2.0/24 TEST-NET-1', '192.0.2.1', 'internal'],
    ['192.31.196.0/24 AS112-v4', '192.31.196.1', 'public'],
    ['192.52.193.0/24 AMT', '192.52.193.1', 'public'],
    ['192.88.99.0/24 deprecated 6to4 relay anycast', '192.88.99.1', 'internal'],
    ['192.168.0.0/16 private-use', '192.168.255.1', 'internal'],
    ['192.175.48.0/24 direct delegation AS112', '192.175.48.1', 'public'],
    ['198.18.0.0/15 benchmarking', '198.18.0.1', 'internal'],
    ['198.18.0.0/15 benchmarking, upper half', '198.19.255.255', 'internal'],
    ['198.51.100.0/24 TEST-NET-2', '198.51.100.1', 'internal'],
    ['203.0.113.0/24 TEST-NET-3', '203.0.113.1', 'internal'],
    ['240.0.0.0/4 reserved', '250.1.2.3', 'refused'],
    ['255.255.255.255/32 limited broadcast', '255.255.255.255', 'refused'],
    ['224.0.0.0/4 multicast (not in the registry, never a receiver)', '239.1.1.1', 'refused'],
    ['next to 198.18.0.0/15', '198.20.0.1', 'public'],
    ['next to 100.64.0.0/10', '100.128.0.1', 'public'],
    ['::1/128 loopback', '::1', 'internal'],
    ['::/128 unspecified', '::', 'refused'],
    ['::ffff:0:0/96 IPv4-mapped, judged as its IPv4 address', '::ffff:198.18.0.1', 'internal'],
    ['::ffff:0:0/96 IPv4-mapped public', '::ffff:8.8.8.8', 'public'],
    ['::/96 IPv4-compatible (deprecated) of loopback', '::127.0.0.1', 'internal'],
    ['::/96 IPv4-compatible of link-local', '::169.254.169.254', 'refused'],
    ['::ffff:0:0:0/96 IPv4-translated (RFC 6145)', '::ffff:0:a00:1', 'internal'],
    ['64:ff9b::/96 NAT64 of loopback', '64:ff9b::7f00:1', 'internal'],
    ['64:ff9b::/96 NAT64 of metadata', '64:ff9b::169.254.169.254', 'refused'],
    ['64:ff9b::/96 NAT64 of a public address', '64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::/48 local-use NAT64', '64:ff9b:1::808:808', 'internal'],
    ['100::/64 discard-only', '100::1', 'internal'],
    ['2001::/23 IETF protocol assignments', '2001:1::3', 'internal'],
    ['2001::/32 Teredo with a loopback client', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'internal'],
    ['2001::/32 Teredo with a private server', '2001:0:a00:1:8000:63bf:f7f7:f7f7', 'internal'],
    ['2001::/32 Teredo with public server and client', '2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'public'],
    ['2001:2::/48 benchmarking', '2001:2::1', 'internal'],
    ['2001:3::/32 AMT', '2001:3::1', 'public'],
    ['2001:4:112::/48 AS112-v6', '2001:4:112::1', 'public'],
    ['2001:10::/28 deprecated ORCHID', '2001:10::1', 'internal'],
    ['2001:20::/28 ORCHIDv2', '2001:20::1', 'public'],
    ['2001:db8::/32 documentation', '2001:db8::1', 'internal'],
    ['2002::/16 6to4 of a private address', '2002:c0a8:101::1', 'internal'],
    ['2002::/16 6to4 of a public address', '2002:808:808::1', 'public'],
    ['2620:4f:8000::/48 direct delegation AS112', '2620:4f:8000::1', 'public'],
    ['3fff::/20 documentation', '3fff::1', 'internal'],
    ['5f00::/16 segment routing SIDs', '5f00::1', 'internal'],
    ['fc00::/7 unique-local', 'fd12:3456::1', 'internal'],
    ['fe80::/10 link-local unicast', 'fe80::1', 'refused'],
    ['fec0::/10 deprecated site-local', 'fec0::1', 'internal'],
    ['ff00::/8 multicast', 'ff02::1', 'refused'],
    ['fd00:ec2::254 AWS metadata', 'fd00:ec2::254', 'refused'],
    ['outside 2000::/3, unallocated', '4000::1', 'internal'],
    ['global unicast', '2606:4700:4700::1111', 'public'],
  ];

  it.each(IANA)('judges %s (%s) as %s', (_entry, address, expected) => {
    const refusal = strict.refusal(address);
    if (expected === 'public') expect(refusal).toBeNull();
    if (expected === 'refused') expect(refusal).toMatch(/link-local, metadata or reserved/);
    if (expected === 'internal') expect(refusal).toMatch(/private or special-purpose network/);
    expect(strict.isInternal(address)).toBe(expected !== 'public');
  });

  it('judges the embedded IPv4 address of IPv6 forms against the allow-list as IPv4', () => {
    for (const address of ['::127.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::1', '::ffff:127.0.0.1']) {
      expect(onPremises.refusal(address)).toBeNull();
    }
    const benchmarking = new AddressPolicy([{ network: '198.18.0.0', prefix: 15, type: 'ipv4' }]);
    expect(benchmarking.refusal('198.19.1.1')).toBeNull();
    expect(benchmarking.refusal('64:ff9b::c612:1')).toBeNull();
    expect(benchmarking.refusal('10.0.0.1')).toMatch(/private or special-purpose network/);
    // Listing an IPv6 range does not open the IPv4 addresses its forms carry.
    const nat64Listed = new AddressPolicy([{ network: '64:ff9b::', prefix: 96, type: 'ipv6' }]);
    expect(nat64Listed.refusal('64:ff9b::7f00:1')).toMatch(/private or special-purpose network/);
  });

  it('refuses anything that is not an IP address', () => {
    expect(strict.refusal('example.com')).toMatch(/not an IP address/);
  });
});

describe('ipLiteral', () => {
  it('returns the address of IP-literal hosts and null for names', () => {
    expect(ipLiteral(new URL('http://169.254.169.254/latest'))).toBe('169.254.169.254');
    expect(ipLiteral(new URL('https://[fe80::1]:8443/hook'))).toBe('fe80::1');
    expect(ipLiteral(new URL('http://0x7f.1/'))).toBe('127.0.0.1'); // WHATWG URL normalizes odd IPv4 spellings
    expect(ipLiteral(new URL('https://hooks.example.com/x'))).toBeNull();
  });
});
