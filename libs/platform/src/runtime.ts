import type { DataSourceOptions } from 'typeorm';
import { type AppConfig, loadConfig } from './config/config';
import { dataSourceOptions } from './database/data-source-options';
import { openEmbeddedPostgres } from './database/embedded-postgres';
import { createLogger, type Logger } from './logging/logger';

/** What every entry point (api, worker, cli) resolves before composing its Nest modules. */
export interface Runtime {
  readonly config: AppConfig;
  readonly logger: Logger;
  readonly database: DataSourceOptions;
  /** Releases what the runtime opened (the embedded database), after the Nest app closed. */
  stop(): Promise<void>;
}

export async function startRuntime(processName: 'api' | 'worker' | 'cli'): Promise<Runtime> {
  const config = loadConfig();
  const logger = processName === 'cli' ? createLogger('warn', processName, process.stderr) : createLogger(config.logLevel, processName);
  if (!config.embedded) {
    return { config, logger, database: dataSourceOptions(config, logger), stop: async () => undefined };
  }
  const embedded = await openEmbeddedPostgres(config.dataDir);
  logger.info({ dataDir: config.dataDir, owner: embedded.owner }, 'using the embedded PGlite database');
  // Embedded mode has no separate migration step: the schema is brought up to date on start.
  const database: DataSourceOptions = { ...dataSourceOptions(config, logger, embedded), migrationsRun: true };
  return { config, logger, database, stop: () => embedded.stop() };
}
