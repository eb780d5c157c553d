import { ConfigError } from '../config/config';
import { RELATION_EXISTS } from '../database/monthly-partitions.sql';
import type { SqlRunner } from '../database/sql/sql-runner';
import type { Encryptor } from './encryption';
import { RESEAL_KEY_CHECK, SOME_SEALED_EVENT_KEY, STORE_KEY_CHECK, STORED_KEY_CHECK } from './encryption-key-check.sql';

const CHECK_TEXT = 'foresight encryption key check';
const CHECK_CONTEXT = 'encryption-key-check';

/**
 * Opens the database's check value with the configured keys before the process does anything else,
 * and refuses to start (ConfigError, printed plainly) when none of them opens it: a wrong
 * ENCRYPTION_KEY would otherwise fail every read of sealed data later, or seal new rows under a key
 * nothing else was sealed with. A new database stores the check under ENCRYPTION_KEY; one sealed
 * before the check existed is checked against the key id its events name. After a rotation
 * (ENCRYPTION_KEY new, the old one in ENCRYPTION_PREVIOUS_KEYS) the check is re-sealed under the new key.
 */
export async function verifyEncryptionKey(sql: SqlRunner, encryptor: Encryptor): Promise<void> {
  const [{ exists }] = await sql.rows(RELATION_EXISTS, ['encryption_key_check']);
  // Not migrated yet: `migrate` itself runs with this check, and the first process after it stores the value.
  if (!exists) return;
  const stored = await sql.first(STORED_KEY_CHECK, []);
  if (stored === undefined) {
    const sealed = await sql.first(SOME_SEALED_EVENT_KEY, []);
    if (sealed !== undefined && !encryptor.holds(sealed.keyId)) throw refusal(sealed.keyId, encryptor);
    await sql.affected(STORE_KEY_CHECK, [encryptor.encrypt(CHECK_TEXT, CHECK_CONTEXT)]);
    const winner = await sql.first(STORED_KEY_CHECK, []);
    if (winner !== undefined) opens(winner.sealed, encryptor);
    return;
  }
  if (opens(stored.sealed, encryptor) !== encryptor.currentKeyId) {
    await sql.affected(RESEAL_KEY_CHECK, [encryptor.encrypt(CHECK_TEXT, CHECK_CONTEXT), stored.sealed]);
  }
}

/** The id of the key that opened `sealed`; a refusal when no key held opens it. */
function opens(sealed: string, encryptor: Encryptor): string {
  const keyId = sealed.split(':')[1] ?? 'unknown';
  try {
    if (encryptor.decryptText(sealed, CHECK_CONTEXT) === CHECK_TEXT) return keyId;
  } catch {
    // Not sealed by any key held: refused below.
  }
  throw refusal(keyId, encryptor);
}

function refusal(keyId: string, encryptor: Encryptor): ConfigError {
  return new ConfigError([
    `ENCRYPTION_KEY: this database's data is sealed with the key whose id is ${keyId}, and neither ENCRYPTION_KEY (id ${encryptor.currentKeyId}) ` +
      `nor ENCRYPTION_PREVIOUS_KEYS is that key. Start with the ENCRYPTION_KEY the data was written with; to rotate, set the new key as ` +
      `ENCRYPTION_KEY and keep the old one in ENCRYPTION_PREVIOUS_KEYS. Refusing to start so that nothing is written under the wrong key.`,
  ]);
}
