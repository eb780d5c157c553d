import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';

/** Arbitrary fixed key: concurrent `migrate` runs (two release jobs) queue behind each other. */
const MIGRATION_LOCK_KEY = 7_313_410_221;

/** A migration that meets a lock conflict is tried this many times in all, pausing a little longer each time (at most 2 s). */
const LOCK_CONFLICT_ATTEMPTS = 20;
const LOCK_CONFLICT_PAUSE_MS = 200;

/**
 * How long a migration waits for a table lock before giving up and running again. Far below
 * PostgreSQL's deadlock_timeout (1 s): in a deadlock with the running release, the migration gives
 * up before the release's own deadlock check can pick the release's query as the victim, so the
 * release's reads and writes do not fail while it migrates.
 */
const MIGRATION_LOCK_TIMEOUT = '100ms';

/** TypeORM's own migrations table, so a database migrated by an earlier release reads the same. */
const MIGRATIONS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS schema_migrations (id SERIAL PRIMARY KEY, "timestamp" bigint NOT NULL, name varchar NOT NULL)`;

/**
 * Applies the pending migrations of `dataSource`, oldest first, each in its own transaction that
 * first takes a transaction-scoped advisory lock and then looks again whether it is still pending.
 * Concurrent runs queue behind each other, an interrupted run resumes at the migration it stopped
 * in, a migration that deadlocks with a running release's queries is run again, and no lock
 * outlives its transaction: a transaction pooler (PgBouncer pool_mode=transaction) hands each
 * transaction to any server session, where a session-level lock would stay behind.
 */
export async function applyMigrations(dataSource: DataSource): Promise<string[]> {
  const applied: string[] = [];
  const runner = dataSource.createQueryRunner();
  try {
    for (const migration of dataSource.migrations) {
      const name = migrationName(migration);
      for (let attempt = 1; ; attempt++) {
        try {
          if (await applyOnce(runner, migration, name)) {
            applied.push(name);
            dataSource.logger.logMigration(`applied ${name}`);
          }
          break;
        } catch (error) {
          if (attempt >= LOCK_CONFLICT_ATTEMPTS || !isLockConflict(error)) throw error;
          dataSource.logger.logMigration(`${name} lost a lock conflict with a running release (${(error as { code: string }).code}); trying again (${attempt} of ${LOCK_CONFLICT_ATTEMPTS - 1})`);
          await new Promise((resolve) => setTimeout(resolve, Math.min(LOCK_CONFLICT_PAUSE_MS * attempt, 2_000)));
        }
      }
    }
  } finally {
    await runner.release();
  }
  return applied;
}

/** One migration in its own transaction, if still pending; whether it ran. Rolled back whole on any error. */
async function applyOnce(runner: QueryRunner, migration: MigrationInterface, name: string): Promise<boolean> {
  await runner.startTransaction();
  try {
    await runner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    // After the advisory lock: a second `migrate` still queues behind the first for as long as it takes.
    await runner.query(`SET LOCAL lock_timeout = '${MIGRATION_LOCK_TIMEOUT}'`);
    await runner.query(MIGRATIONS_TABLE_SQL);
    const done = (await runner.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name])) as unknown[];
    if (done.length === 0) {
      await migration.up(runner);
      await runner.query('INSERT INTO schema_migrations ("timestamp", name) VALUES ($1, $2)', [migrationTimestamp(name), name]);
    }
    await runner.commitTransaction();
    return done.length === 0;
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw error;
  }
}

/**
 * A deadlock or a lock wait given up: the running release's reads and writes (which take their table
 * locks in their own order) met the migration's. The migration's transaction was rolled back whole,
 * so it is simply run again.
 */
function isLockConflict(error: unknown): boolean {
  const code = (error as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code ?? (error as { code?: unknown }).code;
  return code === '40P01' || code === '55P03';
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
