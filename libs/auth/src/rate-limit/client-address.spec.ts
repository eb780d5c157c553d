import { clientAddressBucket } from './client-address';

describe('clientAddressBucket', () => {
  it('is the IPv4 address itself, mapped or not', () => {
    expect(clientAddressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 of an IPv6 address, so addresses picked within it share one bucket', () => {
    expect(clientAddressBucket('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientAddressBucket('2001:db8:1:2:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressBucket('2001:db8:1:3::1')).not.toBe(clientAddressBucket('2001:db8:1:2::1'));
  });
});
