import type { Command } from 'commander';
import { KeyRotationService } from '@foresight/events';
import type { CliContext } from '../cli-context';
import { printResult } from '../output';

export function registerKeyCommands(program: Command, context: CliContext): void {
  const keys = program.command('keys').description('Encryption keys at rest');

  keys
    .command('rotate')
    .description(
      'Re-encrypt stored event properties and context under ENCRYPTION_KEY, in a background job. ' +
        'First deploy the new ENCRYPTION_KEY with the old one in ENCRYPTION_PREVIOUS_KEYS; drop the old key once the job finished.',
    )
    .action(() =>
      context.run(async (app, { json }) => {
        const started = await app.get(KeyRotationService).start();
        printResult(json, started, [`re-encryption job ${started.jobId} queued`, `current key ${started.currentKeyId}`]);
      }),
    );
}
