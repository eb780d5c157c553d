import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { XAES_KEY_NONCE_BYTES, XAES_NONCE_BYTES, XaesKey } from './xaes-256-gcm';

/** What every value is sealed in now: XAES-256-GCM, `v2:<keyId>:<base64(nonce | tag | ciphertext)>`. */
const CURRENT_FORMAT = 'v2';
/** Sealed by earlier versions (plain AES-256-GCM with a random 96-bit IV): still read, never written. */
const GCM_FORMAT = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/**
 * Values sealed under one derived key (one key nonce), their IVs drawn from one CSPRNG call: the
 * derivation and randomBytes run once per 4,096 values instead of once each (ingestion seals two
 * per event), and 4,096 random IVs per derived key are nowhere near GCM's bound.
 */
const VALUES_PER_DERIVED_KEY = 4096;
/** Derived keys kept for decryption: values written together (an export's rows) share them. */
const DERIVED_KEYS_CACHED = 1024;

interface Key {
  /** The configured key: v1 values were sealed with it. */
  main: KeyObject;
  xaes: XaesKey;
}

/** The derived key new values are sealed with, and the IVs left for it. */
interface SealingBatch {
  keyNonce: Buffer;
  key: KeyObject;
  ivs: Buffer;
  used: number;
}

/**
 * Encryption at rest, AES-256 as SPEC.md states, in its XAES-256-GCM form (xaes-256-gcm.ts): a
 * random 192-bit nonce per value, so the number of values one key may seal has no practical bound.
 * v1 values (plain AES-256-GCM, whose random 96-bit IVs allow only 2^32 values per key: about
 * 12 hours of ingestion at 50,000 events/s) still decrypt.
 *
 * The key id (first 8 hex characters of SHA-256 of the key) says which key sealed a value, so a new
 * key can take over encryption while older values stay readable with the key they were sealed with.
 * `context` is bound as additional authenticated data: a value copied to another row (another
 * context) no longer decrypts.
 */
export class Encryptor {
  private readonly current: { id: string; key: Key };
  private readonly keys: ReadonlyMap<string, Key>;
  private sealing: SealingBatch | undefined;
  private readonly derived = new Map<string, KeyObject>();

  /** `keys[0]` encrypts; every key decrypts what it sealed. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('Encryptor needs at least one key');
    const entries = keys.map((key) => {
      if (key.length !== KEY_BYTES) throw new Error(`encryption keys are ${KEY_BYTES} bytes`);
      // KeyObjects, made once: a Buffer key is copied into a new one by every createCipheriv.
      const main = createSecretKey(key);
      return [keyId(key), { main, xaes: new XaesKey(main) }] as const;
    });
    this.current = { id: entries[0][0], key: entries[0][1] };
    this.keys = new Map(entries);
  }

  /** The id of the key new values are sealed with; rows under any other id are due for re-encryption. */
  get currentKeyId(): string {
    return this.current.id;
  }

  /** True when `id` names one of the keys this process decrypts with. */
  holds(id: string): boolean {
    return this.keys.has(id);
  }

  encrypt(plaintext: string | Buffer, context = ''): string {
    const batch = this.sealingBatch();
    const iv = batch.ivs.subarray(batch.used * IV_BYTES, ++batch.used * IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, batch.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const ciphertext = cipher.update(plaintext);
    // GCM is a stream mode: update() returned every ciphertext byte, final() only computes the tag.
    if (cipher.final().length !== 0) throw new Error('AES-GCM returned ciphertext from final()');
    // One buffer for nonce | tag | ciphertext, written in place (this runs for every event ingested).
    const sealed = Buffer.allocUnsafe(XAES_NONCE_BYTES + TAG_BYTES + ciphertext.length);
    batch.keyNonce.copy(sealed, 0);
    iv.copy(sealed, XAES_KEY_NONCE_BYTES);
    cipher.getAuthTag().copy(sealed, XAES_NONCE_BYTES);
    ciphertext.copy(sealed, XAES_NONCE_BYTES + TAG_BYTES);
    return `${CURRENT_FORMAT}:${this.current.id}:${sealed.toString('base64')}`;
  }

  /** A fresh batch (new key nonce, new IVs) when one is used up, so no nonce is ever handed out twice. */
  private sealingBatch(): SealingBatch {
    if (this.sealing === undefined || this.sealing.used === VALUES_PER_DERIVED_KEY) {
      const random = randomBytes(XAES_KEY_NONCE_BYTES + IV_BYTES * VALUES_PER_DERIVED_KEY);
      const keyNonce = random.subarray(0, XAES_KEY_NONCE_BYTES);
      this.sealing = { keyNonce, key: this.current.key.xaes.derive(keyNonce), ivs: random.subarray(XAES_KEY_NONCE_BYTES), used: 0 };
    }
    return this.sealing;
  }

  /** Throws when the value was altered, sealed under another context, or by a key this process does not hold. */
  decrypt(stored: string, context = ''): Buffer {
    const [version, id, sealed, ...rest] = stored.split(':');
    if ((version !== CURRENT_FORMAT && version !== GCM_FORMAT) || sealed === undefined || rest.length > 0) throw new Error('not an encrypted value');
    const key = this.keys.get(id);
    if (!key) throw new Error(`no encryption key with id ${id}`);
    const bytes = Buffer.from(sealed, 'base64');
    if (version === GCM_FORMAT) return open(key.main, bytes, context);
    if (bytes.length < XAES_NONCE_BYTES + TAG_BYTES) throw new Error('encrypted value is truncated');
    return open(this.derivedKey(id, key, bytes.subarray(0, XAES_KEY_NONCE_BYTES)), bytes.subarray(XAES_KEY_NONCE_BYTES), context);
  }

  decryptText(stored: string, context = ''): string {
    return this.decrypt(stored, context).toString('utf8');
  }

  private derivedKey(id: string, key: Key, keyNonce: Buffer): KeyObject {
    const name = `${id}:${keyNonce.toString('hex')}`;
    let derived = this.derived.get(name);
    if (derived === undefined) {
      if (this.derived.size >= DERIVED_KEYS_CACHED) this.derived.clear();
      derived = key.xaes.derive(keyNonce);
      this.derived.set(name, derived);
    }
    return derived;
  }
}

/** Public and stable: it names a key without revealing anything usable about it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** AES-256-GCM of `iv | tag | ciphertext`. */
function open(key: KeyObject, bytes: Buffer, context: string): Buffer {
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted value is truncated');
  const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
    .setAAD(Buffer.from(context))
    .setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}
