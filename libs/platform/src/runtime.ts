import { DataSource, type DataSourceOptions } from 'typeorm';
import { type AppConfig, loadConfig } from './config/config';
import { dataSourceOptions } from './database/data-source-options';
import { openEmbeddedPostgres } from './database/embedded-postgres';
import { SqlExecutor } from './database/sql/sql-executor';
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

/** What a process of the service that runs SQL outside Nest holds (a training run's own process). */
export interface SqlRuntime {
  readonly config: AppConfig;
  readonly sql: SqlExecutor;
  /** Closes its connections (the primary's and the replica's). */
  close(): Promise<void>;
}

/**
 * A data source of the process's own, configured as its parent's (the same environment): the primary,
 * the read replica if one is configured, the pooler's mode. It never opens the embedded database (one
 * process serves it): with PGlite it connects to the socket of the process that does.
 */
export async function connectSql(processName: string): Promise<SqlRuntime> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, processName);
  const dataSource = await new DataSource(dataSourceOptions(config, logger, config.embedded ? { socketDir: config.dataDir } : undefined)).initialize();
  const sql = new SqlExecutor(dataSource, config, logger);
  return {
    config,
    sql,
    close: async () => {
      await sql.onApplicationShutdown();
      await dataSource.destroy();
    },
  };
}
