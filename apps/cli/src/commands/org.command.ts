import type { Command } from 'commander';
import { AuditLogService, type Organization, OrganizationsService, TokensService } from '@foresight/auth';
import type { Region } from '@foresight/platform';
import type { CliContext } from '../cli-context';
import { parseWholeNumber, printResult } from '../output';

interface OrgOptions {
  name?: string;
  region?: Region;
  rateLimit?: number;
  burst?: number;
  hashUserIds?: boolean;
  retentionDays?: number;
}

/** Shared by create and update. */
function privacyOptions(command: Command): Command {
  return command
    .option('--hash-user-ids <on>', 'store user and anonymous ids as a keyed HMAC (true/false); set it before data arrives: ids stored before keep their form', parseSwitch)
    .option('--retention-days <days>', 'delete events and predictions older than this (default 395)', parseWholeNumber('--retention-days'));
}

function parseSwitch(value: string): boolean {
  if (value !== 'true' && value !== 'false') throw new Error('--hash-user-ids takes true or false');
  return value === 'true';
}

export function registerOrgCommands(program: Command, context: CliContext): void {
  const org = program.command('org').description('Organizations');

  privacyOptions(org.command('create'))
    .description('Create an organization and print its first token (all scopes, env prod; shown once)')
    .requiredOption('--name <name>', 'display name')
    .option('--region <region>', 'eu or us; must match this deployment (REGION)')
    .option('--rate-limit <perMinute>', 'sustained requests per minute per token (default 300)', parseWholeNumber('--rate-limit'))
    .option('--burst <perMinute>', 'most requests per token within one minute (default 600)', parseWholeNumber('--burst'))
    .action((options: OrgOptions) =>
      context.run(async (app, { json }) => {
        const organization = await app.get(OrganizationsService).create({
          name: options.name ?? '',
          region: options.region,
          rateLimitPerMinute: options.rateLimit,
          burstPerMinute: options.burst,
          hashUserIds: options.hashUserIds,
          retentionDays: options.retentionDays,
        });
        const issued = await app.get(TokensService).issue({
          organizationId: organization.id,
          environment: 'prod',
          scopes: ['ingest', 'read', 'admin'],
        });
        const audit = app.get(AuditLogService);
        await audit.recordCli(organization.id, 'organization.create', organization.id);
        await audit.recordCli(organization.id, 'token.create', issued.token.id);
        printResult(
          json,
          { organization: organizationView(organization), token: { id: issued.token.id, scopes: issued.token.scopes, secret: issued.secret } },
          [...organizationLines(organization), `token     ${issued.secret}`, '          (ingest, read, admin; shown once: keep it in a secret store)'],
        );
      }),
    );

  privacyOptions(org.command('update <organizationId>'))
    .description("Change an organization's name, rate limits or privacy settings")
    .option('--name <name>', 'display name')
    .option('--rate-limit <perMinute>', 'sustained requests per minute per token', parseWholeNumber('--rate-limit'))
    .option('--burst <perMinute>', 'most requests per token within one minute', parseWholeNumber('--burst'))
    .action((organizationId: string, options: OrgOptions) =>
      context.run(async (app, { json }) => {
        const organization = await app
          .get(OrganizationsService)
          .update(organizationId, {
            name: options.name,
            rateLimitPerMinute: options.rateLimit,
            burstPerMinute: options.burst,
            hashUserIds: options.hashUserIds,
            retentionDays: options.retentionDays,
          });
        await app.get(AuditLogService).recordCli(organization.id, 'organization.update', organization.id);
        printResult(json, { organization: organizationView(organization) }, organizationLines(organization));
      }),
    );

  org
    .command('list')
    .description('List organizations')
    .action(() =>
      context.run(async (app, { json }) => {
        const organizations = await app.get(OrganizationsService).list();
        printResult(
          json,
          { organizations: organizations.map(organizationView) },
          organizations.map((o) => `${o.id}  ${o.region}  ${o.rateLimitPerMinute}/${o.burstPerMinute} per min  ${o.name}`),
        );
      }),
    );
}

function organizationView(o: Organization): Record<string, unknown> {
  return {
    id: o.id,
    name: o.name,
    region: o.region,
    rateLimitPerMinute: o.rateLimitPerMinute,
    burstPerMinute: o.burstPerMinute,
    hashUserIds: o.hashUserIds,
    retentionDays: o.retentionDays,
    createdAt: o.createdAt.toISOString(),
  };
}

function organizationLines(o: Organization): string[] {
  return [
    `org       ${o.id}`,
    `name      ${o.name}`,
    `region    ${o.region}`,
    `limits    ${o.rateLimitPerMinute}/min sustained, ${o.burstPerMinute}/min burst`,
    `privacy   user ids ${o.hashUserIds ? 'hashed' : 'stored as sent'}, kept ${o.retentionDays} days`,
  ];
}
