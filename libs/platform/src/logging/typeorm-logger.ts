import type { Logger } from 'pino';
import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * TypeORM's log lines through the process's pino logger (API, worker and CLI alike), never with a
 * statement's parameters: they hold user ids and ciphertext. The error itself goes through pino's
 * `err` serializer (serializeError), which drops what holds values.
 */
export class PinoTypeOrmLogger implements TypeOrmLogger {
  constructor(private readonly logger: Logger) {}

  /** Statements are not logged: there are too many, and their parameters are personal data. */
  logQuery(): void {}

  /**
   * Debug only: the error reaches the caller, which decides whether it is one (a retried deadlock,
   * a group commit split to find the refused request are not) and logs it where it is handled (a
   * 500, a failed job). At warn it would also land in the CLI's JSON output.
   */
  logQueryError(error: string | Error): void {
    if (typeof error === 'string') this.logger.debug('query failed');
    else this.logger.debug({ err: error }, 'query failed');
  }

  logQuerySlow(time: number): void {
    this.logger.warn({ durationMs: time }, 'slow query');
  }

  logSchemaBuild(message: string): void {
    this.logger.debug(message);
  }

  logMigration(message: string): void {
    this.logger.info(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.debug(String(message));
  }
}
