import type { Command } from 'commander';
import { DataSource } from 'typeorm';
import { MonthlyPartitionsService } from '@foresight/platform';
import type { CliContext } from '../cli-context';
import { printResult } from '../output';

/** Arbitrary fixed key: concurrent `migrate` runs (two release jobs) queue behind each other. */
const MIGRATION_LOCK_KEY = 7_313_410_221;

export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and create the monthly partitions due (run before rolling out a new version)')
    .action(() =>
      context.run(async (app, { json, runtime }) => {
        const dataSource = app.get(DataSource);
        const migrate = async () => {
          const applied = await dataSource.runMigrations({ transaction: 'each' });
          // Before the first event arrives: rows never have to move out of a default partition under readers.
          return { applied: applied.map((m) => m.name), partitions: await app.get(MonthlyPartitionsService).ensureAll() };
        };
        const result = runtime.config.embedded ? await migrate() : await withAdvisoryLock(dataSource, migrate);
        const lines = [...result.applied.map((n) => `applied ${n}`), ...result.partitions.map((p) => `created partition ${p}`)];
        printResult(json, result, lines.length ? lines : ['database is up to date']);
      }),
    );
}

async function withAdvisoryLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T> {
  const lock = dataSource.createQueryRunner();
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    return await work();
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.release();
  }
}
