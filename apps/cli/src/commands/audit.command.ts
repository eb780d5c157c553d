import type { Command } from 'commander';
import { type AuditEntry, AuditLogService } from '@foresight/auth';
import type { CliContext } from '../cli-context';
import { parseWholeNumber, printResult } from '../output';

export function registerAuditCommands(program: Command, context: CliContext): void {
  const audit = program.command('audit').description('Audit log of admin actions');

  audit
    .command('list')
    .description("An organization's admin actions, newest first, through the API and this CLI: tokens, models, webhooks, users, organization settings")
    .requiredOption('--org <organizationId>', 'organization')
    .option('--limit <n>', 'most entries to show', parseWholeNumber('--limit'), 100)
    .action((options: { org: string; limit: number }) =>
      context.run(async (app, { json }) => {
        const entries = await app.get(AuditLogService).list(options.org, options.limit);
        printResult(json, { entries }, entries.length === 0 ? ['no audited actions'] : entries.map(entryLine));
      }),
    );
}

function entryLine(e: AuditEntry): string {
  const actor = e.actor === 'cli' ? 'CLI (operator)' : (e.actorTokenId ?? e.actorPerson?.email ?? e.actorPerson?.subject);
  return `${e.createdAt}  ${e.action.padEnd(23)}  ${e.target ?? '-'}  by ${actor}`;
}
