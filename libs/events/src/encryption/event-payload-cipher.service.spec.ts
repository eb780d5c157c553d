import { randomBytes } from 'node:crypto';
import { Encryptor } from '@foresight/platform';
import { EventPayloadCipherService } from './event-payload-cipher.service';

describe('EventPayloadCipherService', () => {
  const cipher = new EventPayloadCipherService(new Encryptor([randomBytes(32)]));
  const properties = { plan: 'pro', experiment: 42, nested: { screen: 'Cart' } };

  it('round-trips properties as XAES-256-GCM ciphertext that shows none of the plaintext', () => {
    const sealed = cipher.seal('org_a', 'msg-1', 'properties', properties) as string;
    expect(sealed).toMatch(new RegExp(`^v2:${cipher.keyId}:`));
    expect(sealed).not.toContain('pro');
    expect(cipher.open('org_a', 'msg-1', 'properties', sealed, cipher.keyId)).toEqual(properties);
    expect(cipher.seal('org_a', 'msg-1', 'context', undefined)).toBeNull();
  });

  it('rejects a tampered ciphertext', () => {
    const [version, keyId, body] = (cipher.seal('org_a', 'msg-1', 'properties', properties) as string).split(':');
    const bytes = Buffer.from(body, 'base64');
    bytes[bytes.length - 1] ^= 0x01;
    expect(() => cipher.open('org_a', 'msg-1', 'properties', `${version}:${keyId}:${bytes.toString('base64')}`, keyId)).toThrow();
  });

  it('refuses a value moved to another row, organization or column', () => {
    const sealed = cipher.seal('org_a', 'msg-1', 'properties', properties) as string;
    expect(() => cipher.open('org_a', 'msg-2', 'properties', sealed, cipher.keyId)).toThrow();
    expect(() => cipher.open('org_b', 'msg-1', 'properties', sealed, cipher.keyId)).toThrow();
    expect(() => cipher.open('org_a', 'msg-1', 'context', sealed, cipher.keyId)).toThrow();
  });

  it('reads rows from before encryption at rest (no key id) as plain JSON', () => {
    expect(cipher.open('org_a', 'msg-1', 'properties', JSON.stringify(properties), null)).toEqual(properties);
  });

  it('opens values sealed under a previous key after rotation', () => {
    const oldKey = randomBytes(32);
    const before = new EventPayloadCipherService(new Encryptor([oldKey]));
    const sealed = before.seal('org_a', 'msg-1', 'properties', properties) as string;
    const rotated = new EventPayloadCipherService(new Encryptor([randomBytes(32), oldKey]));
    expect(rotated.keyId).not.toBe(before.keyId);
    expect(rotated.open('org_a', 'msg-1', 'properties', sealed, before.keyId)).toEqual(properties);
  });
});
