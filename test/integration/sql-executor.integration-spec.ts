import type { Pool } from 'pg';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Organization } from '@foresight/auth';
import { SqlExecutor, sqlStatement } from '@foresight/platform';
import { freePort } from '../support/ports';
import { type LoggedEntry, recordingLogger } from '../support/recording-logger';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';
import { ADMIN_DATABASE_URL } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';

const PREPARED_NOW = sqlStatement<{ answer: number }, []>('it.prepared-answer', 'SELECT 42 AS answer', { prepared: true });
const PREPARED_NAMES = sqlStatement<{ name: string }, []>('it.prepared-names', 'SELECT name FROM pg_prepared_statements ORDER BY name');
const DEALLOCATE_ALL = sqlStatement<never, []>('it.deallocate-all', 'DEALLOCATE ALL');
/** Statements prepared by no earlier test on the shared connection (pg remembers what it prepared per connection). */
const VANISHING = sqlStatement<{ answer: number }, []>('it.vanishing', 'SELECT 42 AS answer', { prepared: true });
const TAKEN = sqlStatement<{ answer: number }, []>('it.taken', 'SELECT 42 AS answer', { prepared: true });
const TAKEN_IN_TRANSACTION = sqlStatement<{ answer: number }, []>('it.taken-in-transaction', 'SELECT 42 AS answer', { prepared: true });
/** The name taken on the session under the executor's feet, as a pooler's other client would have. */
const takeName = (statement: { name: string }) => sqlStatement<never, []>(`it.take.${statement.name}`, `PREPARE "${statement.name}" AS SELECT 1`);
const SHOW_JIT = sqlStatement<{ jit: string }, []>('it.show-jit', 'SHOW jit');
const SHOW_JIT_OFF = sqlStatement<{ jit: string }, []>('it.show-jit-off', 'SHOW jit', { jit: false });
const PREPARED_JIT_OFF = sqlStatement<{ jit: string }, []>('it.prepared-jit-off', 'SHOW jit', { prepared: true, jit: false });
const SHOW_ISOLATION = sqlStatement<{ transaction_isolation: string }, []>('it.show-isolation', 'SHOW transaction_isolation');
const CREATE_MARKS = sqlStatement<never, []>('it.create-marks', 'CREATE TABLE it_marks (mark int UNIQUE DEFERRABLE INITIALLY DEFERRED)');
const INSERT_MARKS = sqlStatement<never, [marks: number[]]>('it.insert-marks', 'INSERT INTO it_marks SELECT unnest($1::int[])');
const DELETE_MARKS = sqlStatement<never, [atLeast: number]>('it.delete-marks', 'DELETE FROM it_marks WHERE mark >= $1');
const MARKS = sqlStatement<{ mark: number }, []>('it.marks', 'SELECT mark FROM it_marks ORDER BY mark');
const MARK_ARRAYS = sqlStatement<[mark: number, square: number], [below: number]>('it.mark-arrays', 'SELECT mark, mark * mark FROM it_marks WHERE mark < $1 ORDER BY mark');
const ORGANIZATIONS = sqlStatement<{ id: string }, []>('it.organizations', 'SELECT id FROM organizations ORDER BY id');
const DATABASE = sqlStatement<{ name: string }, []>('it.database', 'SELECT current_database() AS name');
const FAIL = sqlStatement<never, []>('it.fail', 'SELECT 1 / 0');

/** The pg pool under TypeORM and the executor: whether every connection went back to it. */
function poolOf(db: ServiceDatabase): Pool {
  return (db.dataSource.driver as PostgresDriver).master as Pool;
}

function expectAllReleased(pool: Pool): void {
  expect({ checkedOut: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }).toEqual({ checkedOut: 0, waiting: 0 });
}

/** An executor on `db`'s data source logging into `logged`: a process of its own, with its own view of prepared statements. */
function executorOn(db: ServiceDatabase, logged: LoggedEntry[], config = db.config): SqlExecutor {
  return new SqlExecutor(db.dataSource, config, recordingLogger(logged).logger);
}

describe('SqlExecutor on a direct connection (one pooled connection, so each statement lands on the same session)', () => {
  let db: ServiceDatabase;

  beforeAll(async () => {
    db = await openServiceDatabase('sql_direct', { env: { DATABASE_POOL_SIZE: '1' }, entities: [Organization] });
    await db.sql.affected(CREATE_MARKS, []);
  });
  afterAll(() => db?.close());
  afterEach(async () => {
    await db.sql.affected(DELETE_MARKS, [-2_147_483_648]);
  });

  it('keeps a prepared statement under its name on the connection', async () => {
    expect(db.sql.preparesStatements).toBe(true);
    expect(await db.sql.first(PREPARED_NOW, [])).toEqual({ answer: 42 });
    expect((await db.sql.rows(PREPARED_NAMES, [])).map((row) => row.name)).toEqual(['it.prepared-answer']);
    // Unprepared statements leave no name behind.
    expect(await db.sql.rows(SHOW_JIT, [])).toHaveLength(1);
    expect((await db.sql.rows(PREPARED_NAMES, [])).map((row) => row.name)).toEqual(['it.prepared-answer']);
  });

  it('counts the rows a write touched, and reads rows as column arrays', async () => {
    expect(await db.sql.affected(INSERT_MARKS, [[1, 2, 3, 4]])).toBe(4);
    expect(await db.sql.arrays(MARK_ARRAYS, [4])).toEqual([
      [1, 1],
      [2, 4],
      [3, 9],
    ]);
    expect(await db.sql.affected(DELETE_MARKS, [3])).toBe(2);
    expect(await db.sql.affected(DELETE_MARKS, [3])).toBe(0);
    expect(await db.sql.rows(MARKS, [])).toEqual([{ mark: 1 }, { mark: 2 }]);
  });

  it('runs a jit: false statement with JIT off, and the others with the server default', async () => {
    expect(await db.sql.first(SHOW_JIT, [])).toEqual({ jit: 'on' });
    expect(await db.sql.first(SHOW_JIT_OFF, [])).toEqual({ jit: 'off' });
    expect(await db.sql.replica.first(SHOW_JIT_OFF, [])).toEqual({ jit: 'off' });
    // SET LOCAL: the connection it ran on is back to the default.
    expect(await db.sql.first(SHOW_JIT, [])).toEqual({ jit: 'on' });
    expectAllReleased(poolOf(db));
  });

  it('runs statements on a TypeORM transaction connection: both kinds of writes roll back together', async () => {
    await expect(
      db.dataSource.transaction(async (manager) => {
        await manager.insert(Organization, { id: 'org_it', name: 'it', region: 'eu', rateLimitPerMinute: 1, burstPerMinute: 2, hashUserIds: false, retentionDays: 1 });
        const tx = db.sql.within(manager);
        await tx.affected(INSERT_MARKS, [[7]]);
        // Same connection: the executor sees TypeORM's uncommitted row, and prepared statements work there too.
        expect(await tx.rows(ORGANIZATIONS, [])).toEqual([{ id: 'org_it' }]);
        expect(await tx.first(PREPARED_NOW, [])).toEqual({ answer: 42 });
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await db.sql.rows(MARKS, [])).toEqual([]);
    expect(await db.sql.rows(ORGANIZATIONS, [])).toEqual([]);
    expectAllReleased(poolOf(db));
  });

  it('commits and rolls back a held transaction, with its isolation level and read-only mode', async () => {
    const kept = await db.sql.begin({ isolation: 'REPEATABLE READ' });
    expect(await kept.first(SHOW_ISOLATION, [])).toEqual({ transaction_isolation: 'repeatable read' });
    await kept.affected(INSERT_MARKS, [[1]]);
    await kept.commit();
    await kept.commit(); // ending twice is a no-op

    const undone = await db.sql.begin();
    await undone.affected(INSERT_MARKS, [[2]]);
    await undone.rollback();
    expect(await db.sql.rows(MARKS, [])).toEqual([{ mark: 1 }]);

    await expect(db.sql.transaction((tx) => tx.affected(INSERT_MARKS, [[3]]), { readOnly: true })).rejects.toThrow(/read-only transaction/);
    expect(await db.sql.transaction((tx) => tx.first(SHOW_JIT, []), { jit: false })).toEqual({ jit: 'off' });
    expectAllReleased(poolOf(db));
  });

  it('releases the connection after a failed statement and after a failed COMMIT', async () => {
    await expect(
      db.sql.transaction(async (tx) => {
        await tx.affected(INSERT_MARKS, [[5]]);
        await tx.rows(FAIL, []);
      }),
    ).rejects.toThrow(/division by zero/);
    expectAllReleased(poolOf(db));

    const held = await db.sql.begin();
    await expect(held.rows(FAIL, [])).rejects.toThrow(/division by zero/);
    await held.rollback();
    expectAllReleased(poolOf(db));

    // The deferred unique constraint is checked at COMMIT, which fails.
    const failing = await db.sql.begin();
    await failing.affected(INSERT_MARKS, [[9, 9]]);
    await expect(failing.commit()).rejects.toThrow(/duplicate key/);
    expectAllReleased(poolOf(db));
    expect(await db.sql.rows(MARKS, [])).toEqual([]);
  });
});

describe('SqlExecutor behind a transaction pooler', () => {
  let db: ServiceDatabase;

  beforeAll(async () => {
    db = await openServiceDatabase('sql_pooled', { env: { DATABASE_POOL_SIZE: '1', DATABASE_POOL_MODE: 'transaction' } });
  });
  afterAll(() => db?.close());

  it('never names a statement when told (DATABASE_POOL_MODE=transaction)', async () => {
    expect(db.sql.preparesStatements).toBe(false);
    expect(await db.sql.first(PREPARED_NOW, [])).toEqual({ answer: 42 });
    expect(await db.sql.first(PREPARED_JIT_OFF, [])).toEqual({ jit: 'off' });
    expect(await db.sql.rows(PREPARED_NAMES, [])).toEqual([]);
  });

  it.each([
    ['its name vanished from the session (26000)', VANISHING, DEALLOCATE_ALL, { answer: 42 }],
    ['its name vanished from the session, inside its jit-off transaction (26000)', PREPARED_JIT_OFF, DEALLOCATE_ALL, { jit: 'off' }],
    ['its name is already taken on the session (42P05)', TAKEN, takeName(TAKEN), { answer: 42 }],
  ] as const)('when not told, detects a pooler when %s: one error logged, the statement still answers, names no more', async (_, statement, pooler, answer) => {
    const logged: Array<{ level: string; entry: unknown }> = [];
    const sql = executorOn(db, logged, { ...db.config, databasePoolMode: 'session' });
    expect(sql.preparesStatements).toBe(true);
    if (pooler === DEALLOCATE_ALL) {
      // Prepared on the one connection, then gone from its session as when a pooler hands it another one.
      expect(await sql.first(statement, [])).toEqual(answer);
      expect((await sql.rows(PREPARED_NAMES, [])).map((row) => row.name)).toEqual([statement.name]);
    }
    await sql.affected(pooler, []);
    expect(await sql.first(statement, [])).toEqual(answer);
    expect(await sql.first(statement, [])).toEqual(answer);
    expect(sql.preparesStatements).toBe(false);
    expect(logged).toEqual([{ level: 'error', entry: { statement: statement.name } }]);
    await sql.affected(DEALLOCATE_ALL, []);
    await sql.first(statement, []);
    expect(await sql.rows(PREPARED_NAMES, [])).toEqual([]);
    expectAllReleased(poolOf(db));
  });

  it('inside a transaction, a refused name fails that transaction once and the next one runs unnamed', async () => {
    const logged: Array<{ level: string; entry: unknown }> = [];
    const sql = executorOn(db, logged, { ...db.config, databasePoolMode: 'session' });
    await sql.affected(takeName(TAKEN_IN_TRANSACTION), []);
    await expect(sql.transaction((tx) => tx.first(TAKEN_IN_TRANSACTION, []))).rejects.toThrow(/already exists/);
    expect(await sql.transaction((tx) => tx.first(TAKEN_IN_TRANSACTION, []))).toEqual({ answer: 42 });
    expect(logged).toEqual([{ level: 'error', entry: { statement: TAKEN_IN_TRANSACTION.name } }]);
    await sql.affected(DEALLOCATE_ALL, []);
    expectAllReleased(poolOf(db));
  });
});

describe('SqlExecutor with a read replica that does not answer', () => {
  let db: ServiceDatabase;

  beforeAll(async () => {
    const closedPort = await freePort();
    db = await openServiceDatabase('sql_replica', { env: { DATABASE_READ_URL: `postgres://postgres@127.0.0.1:${closedPort}/postgres` } });
  });
  afterAll(() => db?.close());

  it('reads from the primary instead, and warns once', async () => {
    const primary = (await db.sql.first(DATABASE, []))?.name;
    expect(primary).toMatch(/^foresight_it_sql_replica_/);
    expect(await db.sql.replica.first(DATABASE, [])).toEqual({ name: primary });
    expect(await db.sql.replica.arrays(DATABASE, [])).toEqual([[primary]]);
    expect(await db.sql.transaction((tx) => tx.first(DATABASE, []), { on: 'replica', readOnly: true })).toEqual({ name: primary });
    expect(await db.sql.replica.first(SHOW_JIT_OFF, [])).toEqual({ jit: 'off' });
    const warnings = db.logged.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0].entry)).toMatch(/read replica is not usable, it does not answer/);
  });
});

describe('SqlExecutor with a read replica that goes away between its checks', () => {
  let db: ServiceDatabase;
  let proxy: TcpProxy;

  beforeAll(async () => {
    // The "replica" is the server's postgres database behind a proxy the test cuts: a read that
    // answers "postgres" ran there, one that answers the test database's name ran on the primary.
    const admin = new URL(ADMIN_DATABASE_URL);
    proxy = await TcpProxy.start({ host: admin.hostname, port: Number(admin.port || 5432) });
    const replica = new URL(ADMIN_DATABASE_URL);
    replica.port = String(proxy.port);
    replica.pathname = '/postgres';
    db = await openServiceDatabase('sql_replica_lost', { env: { DATABASE_READ_URL: replica.toString() } });
  });
  afterAll(async () => {
    await db?.close();
    await proxy?.close();
  });

  it('reads on the replica while it answers, then on the primary, warning once', async () => {
    expect(await db.sql.replica.first(DATABASE, [])).toEqual({ name: 'postgres' });
    expect(await db.sql.transaction((tx) => tx.first(DATABASE, []), { on: 'replica', readOnly: true })).toEqual({ name: 'postgres' });
    expect(db.logged).toEqual([]);
    proxy.cut();
    const primary = (await db.sql.first(DATABASE, []))?.name;
    expect(primary).toMatch(/^foresight_it_sql_replica_lost_/);
    expect(await db.sql.replica.first(DATABASE, [])).toEqual({ name: primary });
    expect(await db.sql.replica.arrays(DATABASE, [])).toEqual([[primary]]);
    expect(await db.sql.transaction((tx) => tx.first(DATABASE, []), { on: 'replica', readOnly: true })).toEqual({ name: primary });
    // Besides the pool's own warning about the idle connection the cut broke.
    const switches = db.logged.filter((line) => line.level === 'warn' && String(line.entry).startsWith('heavy reads go to the primary'));
    expect(switches).toHaveLength(1);
    expect(String(switches[0].entry)).toMatch(/read replica is not usable, a read on it failed/);
  });
});
