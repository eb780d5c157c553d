import { createCipheriv, createSecretKey } from 'node:crypto';
import { XaesKey } from './xaes-256-gcm';

describe('XAES-256-GCM', () => {
  // The test vectors of https://c2sp.org/XAES-256-GCM: AES-256-GCM under the derived key, IV = nonce[12:], ciphertext | tag.
  it.each([
    { key: 0x01, aad: '', sealed: 'ce546ef63c9cc60765923609b33a9a1974e96e52daf2fcf7075e2271' },
    { key: 0x03, aad: 'c2sp.org/XAES-256-GCM', sealed: '986ec1832593df5443a179437fd083bf3fdb41abd740a21f71eb769d' },
  ])('derives the key of the C2SP test vector (key bytes 0x0$key, aad "$aad")', ({ key, aad, sealed }) => {
    const nonce = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWX');
    const derived = new XaesKey(createSecretKey(Buffer.alloc(32, key))).derive(nonce.subarray(0, 12));
    const cipher = createCipheriv('aes-256-gcm', derived, nonce.subarray(12)).setAAD(Buffer.from(aad));
    expect(Buffer.concat([cipher.update('XAES-256-GCM'), cipher.final(), cipher.getAuthTag()]).toString('hex')).toBe(sealed);
  });
});
