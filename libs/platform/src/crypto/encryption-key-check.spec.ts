import { randomBytes } from 'node:crypto';
import type { SqlRunner } from '../database/sql/sql-runner';
import type { SqlStatement } from '../database/sql/sql-statement';
import { Encryptor } from './encryption';
import { verifyEncryptionKey } from './encryption-key-check';

/** The few statements the check runs, over an in-memory table (the e2e suite runs them on PostgreSQL). */
class FakeDatabase implements SqlRunner {
  sealed: string | undefined;
  constructor(
    private readonly migrated = true,
    private readonly someEventKey?: string,
  ) {}

  async rows<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: never): Promise<never[]> {
    const [first] = params as unknown as string[];
    switch (statement.name) {
      case 'platform.relation-exists':
        return [{ exists: this.migrated }] as never[];
      case 'platform.stored-key-check':
        return (this.sealed === undefined ? [] : [{ sealed: this.sealed }]) as never[];
      case 'platform.some-sealed-event-key':
        return (this.someEventKey === undefined ? [] : [{ keyId: this.someEventKey }]) as never[];
      default:
        throw new Error(`unexpected ${statement.name} ${first}`);
    }
  }

  async first<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: never): Promise<never> {
    return (await this.rows(statement, params))[0];
  }

  arrays(): Promise<never[]> {
    throw new Error('not used');
  }

  async affected<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: never): Promise<number> {
    const [sealed, previous] = params as unknown as string[];
    if (statement.name === 'platform.store-key-check' && this.sealed === undefined) this.sealed = sealed;
    else if (statement.name === 'platform.reseal-key-check' && this.sealed === previous) this.sealed = sealed;
    else return 0;
    return 1;
  }
}

const key = () => randomBytes(32);
const keyIdOf = (sealed: string | undefined) => sealed?.split(':')[1];

describe('verifyEncryptionKey', () => {
  it('stores a check under ENCRYPTION_KEY on a new database, and opens it on the next start', async () => {
    const db = new FakeDatabase();
    const current = new Encryptor([key()]);
    await verifyEncryptionKey(db, current);
    expect(keyIdOf(db.sealed)).toBe(current.currentKeyId);
    await expect(verifyEncryptionKey(db, current)).resolves.toBeUndefined();
  });

  it('refuses a key that did not seal the check, naming the key id the data needs', async () => {
    const db = new FakeDatabase();
    const right = new Encryptor([key()]);
    await verifyEncryptionKey(db, right);
    const wrong = new Encryptor([key()]);
    await expect(verifyEncryptionKey(db, wrong)).rejects.toThrow(
      `ENCRYPTION_KEY: this database's data is sealed with the key whose id is ${right.currentKeyId}, and neither ENCRYPTION_KEY (id ${wrong.currentKeyId})`,
    );
    expect(keyIdOf(db.sealed)).toBe(right.currentKeyId);
  });

  it('opens the check with an earlier key during a rotation, and seals it again under the new key', async () => {
    const db = new FakeDatabase();
    const old = key();
    await verifyEncryptionKey(db, new Encryptor([old]));
    const rotated = new Encryptor([key(), old]);
    await verifyEncryptionKey(db, rotated);
    expect(keyIdOf(db.sealed)).toBe(rotated.currentKeyId);
  });

  it('checks a database sealed before the check existed against the key id its events name', async () => {
    const sealedBy = new Encryptor([key()]);
    await expect(verifyEncryptionKey(new FakeDatabase(true, sealedBy.currentKeyId), new Encryptor([key()]))).rejects.toThrow(`key whose id is ${sealedBy.currentKeyId}`);
    const db = new FakeDatabase(true, sealedBy.currentKeyId);
    await verifyEncryptionKey(db, sealedBy);
    expect(keyIdOf(db.sealed)).toBe(sealedBy.currentKeyId);
  });

  it('leaves an unmigrated database alone (migrate runs with the check)', async () => {
    const db = new FakeDatabase(false);
    await verifyEncryptionKey(db, new Encryptor([key()]));
    expect(db.sealed).toBeUndefined();
  });
});
