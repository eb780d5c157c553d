import { createCipheriv, createSecretKey, randomBytes } from 'node:crypto';
import { Encryptor, keyId } from './encryption';
import { XaesKey } from './xaes-256-gcm';

describe('Encryptor', () => {
  const key = randomBytes(32);
  const encryptor = new Encryptor([key]);

  it('round-trips text and bytes in the v2:<keyId>:<base64> format', () => {
    const stored = encryptor.encrypt('whsec_0123456789abcdef');
    expect(stored).toMatch(new RegExp(`^v2:${keyId(key)}:[A-Za-z0-9+/]+=*$`));
    expect(keyId(key)).toMatch(/^[0-9a-f]{8}$/);
    expect(encryptor.decryptText(stored)).toBe('whsec_0123456789abcdef');
    const bytes = randomBytes(100);
    expect(encryptor.decrypt(encryptor.encrypt(bytes)).equals(bytes)).toBe(true);
  });

  it('uses a fresh nonce each time, so equal plaintexts do not look equal', () => {
    expect(encryptor.encrypt('same')).not.toBe(encryptor.encrypt('same'));
  });

  it('never repeats a nonce, derives a new key every 4,096 values, and every value still decrypts', () => {
    const sealed = Array.from({ length: 10_000 }, (_, i) => encryptor.encrypt(`value ${i}`));
    const nonces = sealed.map((s) => Buffer.from(s.split(':')[2], 'base64').subarray(0, 24));
    expect(new Set(nonces.map((n) => n.toString('hex'))).size).toBe(sealed.length);
    expect(new Set(nonces.map((n) => n.subarray(0, 12).toString('hex'))).size).toBe(3);
    expect(sealed.every((s, i) => encryptor.decryptText(s) === `value ${i}`)).toBe(true);
  });

  it('is XAES-256-GCM: nonce | tag | ciphertext, opened here by AES-256-GCM under the derived key', () => {
    const bytes = Buffer.from(encryptor.encrypt('{"plan":"pro"}', 'events.properties:org:msg').split(':')[2], 'base64');
    const derived = new XaesKey(createSecretKey(key)).derive(bytes.subarray(0, 12));
    const decipher = createCipheriv('aes-256-gcm', derived, bytes.subarray(12, 24)).setAAD(Buffer.from('events.properties:org:msg'));
    // GCM encryption and decryption are the same keystream: the ciphertext encrypted again is the plaintext.
    expect(decipher.update(bytes.subarray(40)).toString()).toBe('{"plan":"pro"}');
  });

  it('rejects a tampered nonce, tag or ciphertext, and a truncated value', () => {
    const [version, id, sealed] = encryptor.encrypt('a secret value').split(':');
    const bytes = Buffer.from(sealed, 'base64');
    // Key nonce bytes 0-11, IV 12-23, tag 24-39, ciphertext from 40.
    for (const position of [0, 11, 12, 23, 24, 39, 40, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[position] ^= 0x01;
      expect(() => encryptor.decrypt(`${version}:${id}:${tampered.toString('base64')}`)).toThrow();
    }
    expect(() => encryptor.decrypt(`${version}:${id}:${bytes.subarray(0, 39).toString('base64')}`)).toThrow('truncated');
  });

  it('still opens v1 values, plain AES-256-GCM as earlier versions sealed them, and rejects them tampered', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 }).setAAD(Buffer.from('events.context:org:msg'));
    const ciphertext = Buffer.concat([cipher.update('{"ip":"203.0.113.7"}'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
    expect(encryptor.decryptText(`v1:${keyId(key)}:${sealed.toString('base64')}`, 'events.context:org:msg')).toBe('{"ip":"203.0.113.7"}');
    expect(() => encryptor.decrypt(`v1:${keyId(key)}:${sealed.toString('base64')}`, 'events.context:org:other')).toThrow();
    sealed[sealed.length - 1] ^= 0x01;
    expect(() => encryptor.decrypt(`v1:${keyId(key)}:${sealed.toString('base64')}`, 'events.context:org:msg')).toThrow();
    expect(() => encryptor.decrypt(`v1:${keyId(key)}:${sealed.subarray(0, 27).toString('base64')}`)).toThrow('truncated');
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
