import 'reflect-metadata';
import { Command } from 'commander';
import { SERVICE_VERSION } from '@foresight/platform';
import { CliContext } from './cli-context';
import { registerAuditCommands } from './commands/audit.command';
import { registerDemoCommands } from './commands/demo.command';
import { registerKeyCommands } from './commands/keys.command';
import { registerMigrateCommand } from './commands/migrate.command';
import { registerModelCommands } from './commands/model.command';
import { registerMonitorCommands } from './commands/monitor.command';
import { registerOrgCommands } from './commands/org.command';
import { registerPrivacyCommands } from './commands/privacy.command';
import { registerSsoCommands } from './commands/sso.command';
import { registerTokenCommands } from './commands/token.command';

const program = new Command('foresight')
  .description('Foresight operator CLI')
  .version(SERVICE_VERSION)
  .option('--json', 'print one JSON object (for scripts)', false)
  .showHelpAfterError();
const context = new CliContext(() => program.opts<{ json: boolean }>().json);

registerMigrateCommand(program, context);
registerOrgCommands(program, context);
registerTokenCommands(program, context);
registerDemoCommands(program, context);
registerModelCommands(program, context);
registerMonitorCommands(program, context);
registerPrivacyCommands(program, context);
registerKeyCommands(program, context);
registerAuditCommands(program, context);
registerSsoCommands(program, context);

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
