import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { applyMigrations } from '@foresight/platform';
import { ADMIN_DATABASE_URL } from '../support/services';
import { asAdmin } from '../support/suite';

/**
 * `migrate` while the earlier release keeps running (README "Upgrading"): the release's queries take
 * their table locks in their own order, and a migration that alters several tables can deadlock with
 * one of them. PostgreSQL then rolls back one side; when that is the migration, it is run again.
 */
describe('applyMigrations meeting a running release', () => {
  let databaseName: string;
  let url: string;

  beforeAll(async () => {
    databaseName = `foresight_it_migrate_locks_${randomBytes(4).toString('hex')}`;
    await asAdmin((pg) => pg.query(`CREATE DATABASE ${databaseName}`));
    const direct = new URL(ADMIN_DATABASE_URL);
    direct.pathname = `/${databaseName}`;
    url = direct.toString();
    await withClient(url, (pg) => pg.query('CREATE TABLE first_table (id int); CREATE TABLE second_table (id int)'));
  });

  afterAll(async () => {
    await asAdmin((pg) => pg.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
  });

  it('runs a migration again when PostgreSQL chose it as the victim of a deadlock, and applies it once', async () => {
    const release = new Client({ connectionString: url });
    await release.connect();
    let runs = 0;
    /** Locks first_table, then (after the release holds second_table) asks for second_table. */
    class AltersBothTables1764999999999 implements MigrationInterface {
      name = 'AltersBothTables1764999999999';
      async up(runner: QueryRunner): Promise<void> {
        runs++;
        await runner.query('ALTER TABLE first_table ADD COLUMN IF NOT EXISTS added int');
        if (runs === 1) releaseAsksForFirstTable = releaseReads();
        await runner.query('ALTER TABLE second_table ADD COLUMN IF NOT EXISTS added int');
      }
      async down(): Promise<void> {}
    }
    // The release reads second_table in an open transaction, then first_table: the opposite order.
    await release.query('BEGIN');
    await release.query('SELECT * FROM second_table');
    let releaseAsksForFirstTable: Promise<unknown> | undefined;
    const releaseReads = async () => {
      // After the migration waits for second_table, so that its deadlock check (deadlock_timeout
      // after it began to wait) runs first and picks it as the victim.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await release.query('SELECT * FROM first_table');
      await release.query('COMMIT');
    };

    const dataSource = await new DataSource({ type: 'postgres', url, migrations: [AltersBothTables1764999999999], migrationsTableName: 'schema_migrations' }).initialize();
    try {
      expect(await applyMigrations(dataSource)).toEqual(['AltersBothTables1764999999999']);
      await releaseAsksForFirstTable;
      expect(runs).toBeGreaterThan(1);
      const columns: unknown = await dataSource.query(
        `SELECT table_name FROM information_schema.columns WHERE column_name = 'added' ORDER BY table_name`,
      );
      expect(columns).toEqual([{ table_name: 'first_table' }, { table_name: 'second_table' }]);
      expect(await dataSource.query('SELECT name FROM schema_migrations')).toEqual([{ name: 'AltersBothTables1764999999999' }]);
    } finally {
      await dataSource.destroy();
      await release.end();
    }
  });

  it("gives way to the release when the release began to wait first, so the release's query does not fail", async () => {
    const release = new Client({ connectionString: url });
    await release.connect();
    let runs = 0;
    let releaseRead: Promise<unknown> | undefined;
    /** Locks third_table; the release, holding fourth_table, then waits for it; then this asks for fourth_table. */
    class AltersTwoMoreTables1764999999998 implements MigrationInterface {
      name = 'AltersTwoMoreTables1764999999998';
      async up(runner: QueryRunner): Promise<void> {
        runs++;
        await runner.query('ALTER TABLE third_table ADD COLUMN IF NOT EXISTS added int');
        if (runs === 1) {
          releaseRead = release.query('SELECT * FROM third_table').then(() => release.query('COMMIT'));
          // The release waits first: without the migration's lock timeout, the release's deadlock check would run first and fail its query.
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
        await runner.query('ALTER TABLE fourth_table ADD COLUMN IF NOT EXISTS added int');
      }
      async down(): Promise<void> {}
    }
    await withClient(url, (pg) => pg.query('CREATE TABLE third_table (id int); CREATE TABLE fourth_table (id int)'));
    await release.query('BEGIN');
    await release.query('SELECT * FROM fourth_table');

    const dataSource = await new DataSource({ type: 'postgres', url, migrations: [AltersTwoMoreTables1764999999998], migrationsTableName: 'schema_migrations' }).initialize();
    try {
      expect(await applyMigrations(dataSource)).toEqual(['AltersTwoMoreTables1764999999998']);
      await expect(releaseRead).resolves.toBeDefined();
      expect(runs).toBeGreaterThan(1);
    } finally {
      await dataSource.destroy();
      await release.end();
    }
  });
});

async function withClient(url: string, work: (pg: Client) => Promise<unknown>): Promise<void> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    await work(pg);
  } finally {
    await pg.end();
  }
}
