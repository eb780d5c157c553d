import { randomBytes } from 'node:crypto';
import { Encryptor, keyId } from './encryption';

describe('Encryptor', () => {
  const key = randomBytes(32);
  const encryptor = new Encryptor([key]);

  it('round-trips text and bytes in the v1:<keyId>:<base64> format', () => {
    const stored = encryptor.encrypt('whsec_0123456789abcdef');
    expect(stored).toMatch(new RegExp(`^v1:${keyId(key)}:[A-Za-z0-9+/]+=*$`));
    expect(keyId(key)).toMatch(/^[0-9a-f]{8}$/);
    expect(encryptor.decryptText(stored)).toBe('whsec_0123456789abcdef');
    const bytes = randomBytes(100);
    expect(encryptor.decrypt(encryptor.encrypt(bytes)).equals(bytes)).toBe(true);
  });

  it('uses a fresh IV each time, so equal plaintexts do not look equal', () => {
    expect(encryptor.encrypt('same')).not.toBe(encryptor.encrypt('same'));
  });

  it('never repeats an IV, across refills of its IV pool, and every value still decrypts', () => {
    const sealed = Array.from({ length: 10_000 }, (_, i) => encryptor.encrypt(`value ${i}`));
    const ivs = new Set(sealed.map((s) => Buffer.from(s.split(':')[2], 'base64').subarray(0, 12).toString('hex')));
    expect(ivs.size).toBe(sealed.length);
    expect(sealed.every((s, i) => encryptor.decryptText(s) === `value ${i}`)).toBe(true);
  });

  it('rejects a tampered ciphertext, tag or IV', () => {
    const [version, id, sealed] = encryptor.encrypt('a secret value').split(':');
    const bytes = Buffer.from(sealed, 'base64');
    // IV bytes 0-11, tag 12-27, ciphertext from 28.
    for (const position of [0, 12, 27, 28, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[position] ^= 0x01;
      expect(() => encryptor.decrypt(`${version}:${id}:${tampered.toString('base64')}`)).toThrow();
    }
    expect(() => encryptor.decrypt(`${version}:${id}:${bytes.subarray(0, 20).toString('base64')}`)).toThrow('truncated');
  });

  it('binds the context: a value moved to another row does not decrypt', () => {
    const stored = encryptor.encrypt('secret', 'webhook:whk_a');
    expect(encryptor.decryptText(stored, 'webhook:whk_a')).toBe('secret');
    expect(() => encryptor.decrypt(stored, 'webhook:whk_b')).toThrow();
  });

  it('decrypts with the key that sealed a value and refuses unknown keys', () => {
    const sealedByCurrent = encryptor.encrypt('old value');
    const rotated = new Encryptor([randomBytes(32), key]);
    expect(rotated.decryptText(sealedByCurrent)).toBe('old value');
    expect(rotated.encrypt('new value').split(':')[1]).not.toBe(keyId(key));
    expect(() => new Encryptor([randomBytes(32)]).decrypt(sealedByCurrent)).toThrow(/no encryption key/);
    expect(() => encryptor.decrypt('plain text')).toThrow('not an encrypted value');
  });

  it('accepts only 256-bit keys', () => {
    expect(() => new Encryptor([randomBytes(16)])).toThrow('32 bytes');
    expect(() => new Encryptor([])).toThrow();
  });
});
