import type { Command } from 'commander';
import { AuditLogService, OrganizationsService, type SsoGrant, ssoGrantSchema, SsoGrantsService } from '@foresight/auth';
import type { CliContext } from '../cli-context';
import { printResult } from '../output';

export function registerSsoCommands(program: Command, context: CliContext): void {
  const sso = program.command('sso').description("Single sign-on: which groups of the identity provider hold which role in an organization");

  sso
    .command('grant')
    .description("Grant a group a role in an organization (replacing the group's role there); sessions follow at their next refresh")
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--group <name>', "a value of the provider's groups claim (OIDC_GROUPS_CLAIM)")
    .requiredOption('--role <role>', 'viewer, editor or admin')
    .action((options: { org: string; group: string; role: string }) =>
      context.run(async (app, { json }) => {
        const grant = parseGrant(options.group, options.role);
        await app.get(OrganizationsService).get(options.org);
        await app.get(SsoGrantsService).grant(options.org, grant);
        await app.get(AuditLogService).recordCli(options.org, 'organization.sso-grants', options.org);
        printResult(json, { organizationId: options.org, grant }, [`${grant.group}  ${grant.role}  in ${options.org}`]);
      }),
    );

  sso
    .command('grants')
    .description("List an organization's grants")
    .requiredOption('--org <organizationId>', 'organization')
    .action((options: { org: string }) =>
      context.run(async (app, { json }) => {
        const grants = await app.get(SsoGrantsService).list(options.org);
        printResult(json, { organizationId: options.org, grants }, grants.map((grant) => `${grant.role.padEnd(6)}  ${grant.group}`));
      }),
    );

  sso
    .command('revoke')
    .description("Revoke a group's grant in an organization; its people lose that access at their session's next refresh")
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--group <name>', 'the granted group')
    .action((options: { org: string; group: string }) =>
      context.run(async (app, { json }) => {
        const revoked = await app.get(SsoGrantsService).revoke(options.org, options.group);
        if (revoked) await app.get(AuditLogService).recordCli(options.org, 'organization.sso-grants', options.org);
        printResult(json, { organizationId: options.org, group: options.group, revoked }, [revoked ? `revoked ${options.group} in ${options.org}` : `${options.group} held no grant in ${options.org}`]);
      }),
    );
}

function parseGrant(group: string, role: string): SsoGrant {
  const parsed = ssoGrantSchema.safeParse({ group, role });
  if (!parsed.success) throw new Error(`--group takes printable text (1 to 256 characters), --role viewer, editor or admin: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  return parsed.data;
}
