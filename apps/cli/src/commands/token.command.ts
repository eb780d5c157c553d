import type { Command } from 'commander';
import { type ApiToken, AuditLogService, isEnvironment, isScope, type Scope, type TokenEnvironment, tokenNameSchema, TokensService, tokenView } from '@foresight/auth';
import type { CliContext } from '../cli-context';
import { parseWholeNumber, printResult } from '../output';

interface TokenCreateOptions {
  org: string;
  name?: string;
  env: TokenEnvironment;
  scopes: Scope[];
  expiresInDays?: number;
}

export function registerTokenCommands(program: Command, context: CliContext): void {
  const token = program.command('token').description('API tokens');

  token
    .command('create')
    .description('Create a token (the secret is printed once)')
    .requiredOption('--org <organizationId>', 'organization')
    .requiredOption('--env <env>', 'dev, staging or prod', parseEnvironment)
    .requiredOption('--scopes <scopes>', 'comma-separated: ingest,read,admin (SDKs: ingest only)', parseScopes)
    .option('--expires-in-days <days>', 'expire after this many days', parseWholeNumber('--expires-in-days'))
    .option('--name <name>', 'what the token is for, e.g. "iOS app" (1 to 100 printable characters)', parseName)
    .action((options: TokenCreateOptions) =>
      context.run(async (app, { json }) => {
        const issued = await app.get(TokensService).issue({
          organizationId: options.org,
          name: options.name,
          environment: options.env,
          scopes: options.scopes,
          expiresInDays: options.expiresInDays,
        });
        await app.get(AuditLogService).recordCli(options.org, 'token.create', issued.token.id);
        printResult(json, { token: { ...tokenView(issued.token), secret: issued.secret } }, [
          ...tokenLines(issued.token),
          `secret    ${issued.secret}`,
          '          (shown once: keep it in a secret store)',
        ]);
      }),
    );

  token
    .command('list')
    .description("List an organization's tokens (never their secrets)")
    .requiredOption('--org <organizationId>', 'organization')
    .action((options: { org: string }) =>
      context.run(async (app, { json }) => {
        const tokens = await app.get(TokensService).list(options.org);
        printResult(
          json,
          { tokens: tokens.map(tokenView) },
          tokens.map((t) => `${t.id}  ${t.environment.padEnd(7)}  ${t.scopes.join(',').padEnd(17)}  …${t.hint}  ${state(t)}${t.name === null ? '' : `  ${t.name}`}`),
        );
      }),
    );

  token
    .command('revoke <tokenId>')
    .description('Revoke a token; every API replica refuses it within one second')
    .action((tokenId: string) =>
      context.run(async (app, { json }) => {
        const revoked = await app.get(TokensService).revokeById(tokenId);
        await app.get(AuditLogService).recordCli(revoked.organizationId, 'token.revoke', revoked.id);
        printResult(json, { token: tokenView(revoked) }, tokenLines(revoked));
      }),
    );
}

function parseName(value: string): string {
  const parsed = tokenNameSchema.safeParse(value);
  if (!parsed.success) throw new Error(`--name takes 1 to 100 printable characters: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  return parsed.data;
}

function parseEnvironment(value: string): TokenEnvironment {
  if (!isEnvironment(value)) throw new Error('--env must be dev, staging or prod');
  return value;
}

function parseScopes(value: string): Scope[] {
  const scopes = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = scopes.filter((s) => !isScope(s));
  if (scopes.length === 0 || unknown.length > 0) throw new Error(`--scopes takes ingest, read, admin (unknown: ${unknown.join(', ') || 'none given'})`);
  return scopes as Scope[];
}

function state(t: ApiToken): string {
  if (t.revokedAt) return `revoked ${t.revokedAt.toISOString()}`;
  if (t.expiresAt) return `${t.expiresAt.getTime() <= Date.now() ? 'expired' : 'expires'} ${t.expiresAt.toISOString()}`;
  return 'active';
}

function tokenLines(t: ApiToken): string[] {
  return [`token     ${t.id}`, ...(t.name === null ? [] : [`name      ${t.name}`]), `org       ${t.organizationId}`, `env       ${t.environment}`, `scopes    ${t.scopes.join(', ')}`, `state     ${state(t)}`];
}
