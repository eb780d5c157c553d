import type { Command } from 'commander';
import { AuditLogService } from '@foresight/auth';
import { UserIdsService } from '@foresight/events';
import { type ErasureRecord, ErasureRecordsService, PrivacyService } from '@foresight/privacy';
import type { CliContext } from '../cli-context';
import { parseWholeNumber, printResult } from '../output';

interface ErasureListOptions {
  org: string;
  user?: string;
  limit: number;
}

export function registerPrivacyCommands(program: Command, context: CliContext): void {
  const privacy = program.command('privacy').description('User erasure records and suppression');

  privacy
    .command('erasures')
    .description('List erasure requests, newest first: pending until the sweep confirmed no store holds the user')
    .requiredOption('--org <organizationId>', 'organization')
    .option('--user <userId>', "only this user's requests (matched by keyed hash; the id is not stored)")
    .option('--limit <n>', 'most records to show', parseWholeNumber('--limit'), 100)
    .action((options: ErasureListOptions) =>
      context.run(async (app, { json }) => {
        const userHashes = options.user === undefined ? undefined : app.get(UserIdsService).userHashes(options.org, options.user);
        const erasures = await app.get(ErasureRecordsService).list(options.org, { userHashes, limit: options.limit });
        printResult(json, { erasures }, erasures.length === 0 ? ['no erasure requests'] : erasures.map(erasureLine));
      }),
    );

  privacy
    .command('unsuppress')
    .description("Accept a suppressed user's events again (erased earlier with suppress=true)")
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--user <userId>', 'the user id as the organization sends it')
    .action((options: { org: string; user: string }) =>
      context.run(async (app, { json }) => {
        const userIds = app.get(UserIdsService);
        const user = await userIds.resolve(options.org, options.user);
        const unsuppressed = await app.get(PrivacyService).unsuppress(options.org, user);
        // Named by its keyed hash, as the API's audit entries name users: the audit log holds no user id.
        await app.get(AuditLogService).recordCli(options.org, 'user.unsuppress', `user:${userIds.userHash(options.org, user.stored)}`);
        printResult(json, { unsuppressed }, [unsuppressed ? "the user's events are accepted again" : 'the user was not suppressed']);
      }),
    );
}

function erasureLine(e: ErasureRecord): string {
  const erased = Object.entries(e.erased).map(([store, rows]) => `${store}=${rows}`).join(' ') || 'nothing';
  const state = e.status === 'confirmed' ? `confirmed ${e.confirmedAt}` : `pending after ${e.attempts} sweep(s)`;
  return `${e.id}  requested ${e.requestedAt}  ${state}  user ${e.userHash.slice(0, 12)}…  erased ${erased}`;
}
