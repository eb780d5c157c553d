import type { DataSource, MigrationInterface } from 'typeorm';

/** Arbitrary fixed key: concurrent `migrate` runs (two release jobs) queue behind each other. */
const MIGRATION_LOCK_KEY = 7_313_410_221;

/** TypeORM's own migrations table, so a database migrated by an earlier release reads the same. */
const MIGRATIONS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS schema_migrations (id SERIAL PRIMARY KEY, "timestamp" bigint NOT NULL, name varchar NOT NULL)`;

/**
 * Applies the pending migrations of `dataSource`, oldest first, each in its own transaction that
 * first takes a transaction-scoped advisory lock and then looks again whether it is still pending.
 * Concurrent runs queue behind each other, an interrupted run resumes at the migration it stopped
 * in, and no lock outlives its transaction: a transaction pooler (PgBouncer pool_mode=transaction)
 * hands each transaction to any server session, where a session-level lock would stay behind.
 */
export async function applyMigrations(dataSource: DataSource): Promise<string[]> {
  const applied: string[] = [];
  const runner = dataSource.createQueryRunner();
  try {
    for (const migration of dataSource.migrations) {
      const name = migrationName(migration);
      await runner.startTransaction();
      try {
        await runner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
        await runner.query(MIGRATIONS_TABLE_SQL);
        const done = (await runner.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name])) as unknown[];
        if (done.length === 0) {
          await migration.up(runner);
          await runner.query('INSERT INTO schema_migrations ("timestamp", name) VALUES ($1, $2)', [migrationTimestamp(name), name]);
          applied.push(name);
          dataSource.logger.logMigration(`applied ${name}`);
        }
        await runner.commitTransaction();
      } catch (error) {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        throw error;
      }
    }
  } finally {
    await runner.release();
  }
  return applied;
}

function migrationName(migration: MigrationInterface): string {
  return migration.name ?? migration.constructor.name;
}

/** The 13-digit suffix of the class name, as TypeORM stores it. */
function migrationTimestamp(name: string): number {
  const digits = /(\d{13})$/.exec(name);
  if (!digits) throw new Error(`migration ${name} does not end in a 13-digit timestamp`);
  return Number(digits[1]);
}
