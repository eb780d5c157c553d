import type { Logger as TypeOrmLogger } from 'typeorm';
import type { Logger } from 'pino';

/**
 * TypeORM's log lines through the process's pino logger (API, worker and CLI alike), never with a
 * statement's parameters: they hold user ids and ciphertext. The error itself goes through pino's
 * `err` serializer (serializeError), which drops what holds values.
 */
export class PinoTypeOrmLogger implements TypeOrmLogger {
  constructor(private readonly logger: Logger) {}

  /** Statements are not logged: there are too many, and their parameters are personal data. */
  logQuery(): void {}

  /** Warn, not error: the caller decides whether the failure is one (a retried deadlock is not). */
  logQueryError(error: string | Error): void {
    if (typeof error === 'string') this.logger.warn('query failed');
    else this.logger.warn({ err: error }, 'query failed');
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
    else this.logger.info(String(message));
  }
}
