import { importSigningKey, signBody } from './transport';

describe('signBody', () => {
  it('is the hex HMAC-SHA-256 of the exact bytes, keyed with the token (RFC 4231 test case 2)', async () => {
    const key = await importSigningKey('Jefe');
    const signature = await signBody(key, new TextEncoder().encode('what do ya want for nothing?'));
    expect(signature).toBe('v1=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('changes with a single changed byte', async () => {
    const key = await importSigningKey('pat_dev_token');
    const encode = (text: string) => new TextEncoder().encode(text);
    expect(await signBody(key, encode('[{"event":"click"}]'))).not.toBe(await signBody(key, encode('[{"event":"clack"}]')));
  });
});
