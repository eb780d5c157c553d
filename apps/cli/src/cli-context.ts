import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppError, PinoNestLogger, type Runtime, startRuntime } from '@foresight/platform';
import { CliModule } from './cli.module';

export interface CommandEnvironment {
  json: boolean;
  runtime: Runtime;
}

/** Opens the application context around one command, closes it after, and turns failures into exit codes. */
export class CliContext {
  constructor(private readonly isJson: () => boolean) {}

  async run(command: (app: INestApplicationContext, env: CommandEnvironment) => Promise<void>): Promise<void> {
    const json = this.isJson();
    let runtime: Runtime | undefined;
    let app: INestApplicationContext | undefined;
    try {
      runtime = await startRuntime('cli');
      app = await NestFactory.createApplicationContext(CliModule.register(runtime), { logger: new PinoNestLogger(runtime.logger) });
      await command(app, { json, runtime });
    } catch (error) {
      process.exitCode = 1;
      const code = error instanceof AppError ? error.code : 'error';
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(json ? `${JSON.stringify({ error: code, message })}\n` : `error: ${message}\n`);
    } finally {
      await app?.close();
      await runtime?.stop();
    }
  }
}
