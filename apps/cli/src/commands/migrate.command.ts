import type { Command } from 'commander';
import { DataSource } from 'typeorm';
import type { CliContext } from '../cli-context';
import { printResult } from '../output';

/** Arbitrary fixed key: concurrent `migrate` runs (two release jobs) queue behind each other. */
const MIGRATION_LOCK_KEY = 7_313_410_221;

export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('Apply pending database migrations (run before rolling out a new version)')
    .action(() =>
      context.run(async (app, { json, runtime }) => {
        const dataSource = app.get(DataSource);
        const applied = runtime.config.embedded
          ? await dataSource.runMigrations({ transaction: 'each' })
          : await withAdvisoryLock(dataSource, () => dataSource.runMigrations({ transaction: 'each' }));
        const names = applied.map((m) => m.name);
        printResult(json, { applied: names }, names.length ? names.map((n) => `applied ${n}`) : ['database is up to date']);
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
