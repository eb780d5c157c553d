import { createCipheriv, createSecretKey, type KeyObject } from 'node:crypto';

/** XAES-256-GCM's nonce: the first half picks the derived key, the second is that key's AES-256-GCM IV. */
export const XAES_NONCE_BYTES = 24;
export const XAES_KEY_NONCE_BYTES = 12;

/**
 * XAES-256-GCM (C2SP, https://c2sp.org/XAES-256-GCM): AES-256-GCM under a key derived from the
 * main key and the first 12 bytes of a 24-byte nonce, with the other 12 bytes as the GCM IV. With
 * random nonces, plain AES-256-GCM may seal at most 2^32 values per key (NIST SP 800-38D, 8.3);
 * XAES-256-GCM lifts that bound to far beyond anything a deployment writes, and it is still only
 * AES-256. The derivation is NIST SP 800-108r1's counter-mode KDF with CMAC-AES-256, two blocks:
 *
 *   L = AES-256_K(0^128); K1 = L << 1, xor 0x87 into its last byte when L's top bit is set
 *   Kx = AES-256_K(K1 xor (0x00 0x01 "X" 0x00 N[:12])) || AES-256_K(K1 xor (0x00 0x02 "X" 0x00 N[:12]))
 */
export class XaesKey {
  private readonly k1: Buffer;

  constructor(private readonly key: KeyObject) {
    const l = aes256Blocks(key, Buffer.alloc(16));
    this.k1 = Buffer.alloc(16);
    for (let i = 0; i < 16; i++) this.k1[i] = ((l[i] << 1) | (i < 15 ? l[i + 1] >> 7 : 0)) & 0xff;
    if (l[0] & 0x80) this.k1[15] ^= 0x87;
  }

  /** The AES-256-GCM key for nonces starting with `keyNonce` (their first 12 bytes). */
  derive(keyNonce: Buffer): KeyObject {
    const blocks = Buffer.alloc(32);
    for (const [offset, counter] of [
      [0, 1],
      [16, 2],
    ]) {
      blocks.set([0x00, counter, 0x58, 0x00], offset);
      keyNonce.copy(blocks, offset + 4, 0, XAES_KEY_NONCE_BYTES);
      for (let i = 0; i < 16; i++) blocks[offset + i] ^= this.k1[i];
    }
    return createSecretKey(aes256Blocks(this.key, blocks));
  }
}

/** AES-256 of whole 16-byte blocks, each on its own (ECB): only ever used on the derivation's fixed-size inputs. */
function aes256Blocks(key: KeyObject, blocks: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  return Buffer.concat([cipher.update(blocks), cipher.final()]);
}
