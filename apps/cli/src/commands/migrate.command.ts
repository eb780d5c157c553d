import type { Command } from 'commander';
import { DataSource } from 'typeorm';
import { applyMigrations, MonthlyPartitionsService } from '@foresight/platform';
import type { CliContext } from '../cli-context';
import { printResult } from '../output';

export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command('migrate')
    .description('Apply pending database migrations and create the monthly partitions due (run before rolling out a new version)')
    .action(() =>
      context.run(async (app, { json }) => {
        const applied = await applyMigrations(app.get(DataSource));
        // Before the first event arrives: rows never have to move out of a default partition under readers.
        const result = { applied, partitions: await app.get(MonthlyPartitionsService).ensureAll() };
        const lines = [...result.applied.map((n) => `applied ${n}`), ...result.partitions.map((p) => `created partition ${p}`)];
        printResult(json, result, lines.length ? lines : ['database is up to date']);
      }),
    );
}
