import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** IVs are drawn from a pool of CSPRNG output: one randomBytes call per 4,096 values instead of one each (ingestion seals two per event). */
const IV_POOL_VALUES = 4096;

/**
 * Encryption at rest: AES-256-GCM, a random 96-bit IV per value, stored as
 * `v1:<keyId>:<base64(iv | tag | ciphertext)>`. The key id (first 8 hex characters of SHA-256 of
 * the key) says which key sealed a value, so a new key can take over encryption while older
 * values stay readable with the key they were sealed with.
 *
 * `context` is bound as additional authenticated data: a value copied to another row (another
 * context) no longer decrypts.
 */
export class Encryptor {
  /** KeyObjects, made once: a Buffer key is copied into a new one by every createCipheriv. */
  private readonly current: { id: string; key: KeyObject };
  private readonly keys: ReadonlyMap<string, KeyObject>;
  private ivPool = Buffer.alloc(0);
  private ivOffset = 0;

  /** `keys[0]` encrypts; every key decrypts what it sealed. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('Encryptor needs at least one key');
    const entries = keys.map((key) => {
      if (key.length !== KEY_BYTES) throw new Error(`encryption keys are ${KEY_BYTES} bytes`);
      return [keyId(key), createSecretKey(key)] as const;
    });
    this.current = { id: entries[0][0], key: entries[0][1] };
    this.keys = new Map(entries);
  }

  /** The id of the key new values are sealed with; rows under any other id are due for re-encryption. */
  get currentKeyId(): string {
    return this.current.id;
  }

  encrypt(plaintext: string | Buffer, context = ''): string {
    const iv = this.nextIv();
    const cipher = createCipheriv(ALGORITHM, this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const ciphertext = cipher.update(plaintext);
    // GCM is a stream mode: update() returned every ciphertext byte, final() only computes the tag.
    if (cipher.final().length !== 0) throw new Error('AES-GCM returned ciphertext from final()');
    // One buffer for iv | tag | ciphertext, written in place (this runs for every event ingested).
    const sealed = Buffer.allocUnsafe(IV_BYTES + TAG_BYTES + ciphertext.length);
    iv.copy(sealed, 0);
    cipher.getAuthTag().copy(sealed, IV_BYTES);
    ciphertext.copy(sealed, IV_BYTES + TAG_BYTES);
    return `${FORMAT_VERSION}:${this.current.id}:${sealed.toString('base64')}`;
  }

  /** A fresh pool is allocated when one runs out, so an IV handed out earlier is never overwritten or reused. */
  private nextIv(): Buffer {
    if (this.ivOffset + IV_BYTES > this.ivPool.length) {
      this.ivPool = randomBytes(IV_BYTES * IV_POOL_VALUES);
      this.ivOffset = 0;
    }
    this.ivOffset += IV_BYTES;
    return this.ivPool.subarray(this.ivOffset - IV_BYTES, this.ivOffset);
  }

  /** Throws when the value was altered, sealed under another context, or by a key this process does not hold. */
  decrypt(stored: string, context = ''): Buffer {
    const [version, id, sealed, ...rest] = stored.split(':');
    if (version !== FORMAT_VERSION || sealed === undefined || rest.length > 0) throw new Error('not an encrypted value');
    const key = this.keys.get(id);
    if (!key) throw new Error(`no encryption key with id ${id}`);
    const bytes = Buffer.from(sealed, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted value is truncated');
    const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES })
      .setAAD(Buffer.from(context))
      .setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  }

  decryptText(stored: string, context = ''): string {
    return this.decrypt(stored, context).toString('utf8');
  }
}

/** Public and stable: it names a key without revealing anything usable about it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}
