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
    for (const address of addresses) expect(strict.refusal(address)).toMatch(/private network/);
    for (const address of ['127.0.0.1', '10.1.2.3', 'fd12:3456::1', '::ffff:7f00:1']) expect(onPremises.refusal(address)).toBeNull();
    for (const address of ['192.168.1.1', '172.16.0.1', '::1']) expect(onPremises.refusal(address)).toMatch(/private network/);
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
