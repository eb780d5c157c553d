import { generateTokenSecret, hashTokenSecret, looksLikeToken } from './token-secret';

describe('token secrets', () => {
  it('are pat_<env>_ followed by 256 random bits', () => {
    const secret = generateTokenSecret('staging');
    expect(secret).toMatch(/^pat_staging_[0-9a-f]{64}$/);
    expect(looksLikeToken(secret)).toBe(true);
    expect(generateTokenSecret('staging')).not.toBe(secret);
  });

  it('rejects anything else before touching the database', () => {
    for (const value of ['', 'pat_prod_', `pat_qa_${'a'.repeat(64)}`, `pat_prod_${'g'.repeat(64)}`, `Bearer pat_prod_${'a'.repeat(64)}`]) {
      expect(looksLikeToken(value)).toBe(false);
    }
  });

  it('hash with HMAC-SHA-256 under the pepper (RFC 4231 test case 2)', () => {
    expect(hashTokenSecret('what do ya want for nothing?', 'Jefe').toString('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('depend on the pepper', () => {
    const secret = generateTokenSecret('prod');
    expect(hashTokenSecret(secret, 'a'.repeat(32)).equals(hashTokenSecret(secret, 'b'.repeat(32)))).toBe(false);
  });
});
