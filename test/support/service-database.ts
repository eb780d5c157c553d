import { randomBytes } from 'node:crypto';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { type AppConfig, applyMigrations, loadConfig, MIGRATIONS, SqlExecutor } from '@foresight/platform';
import { type LoggedEntry, recordingLogger } from './recording-logger';
import { ADMIN_DATABASE_URL, REDIS_URL } from './services';
import { asAdmin } from './suite';

/** What a service-level test holds: its own migrated database, a TypeORM data source and the SQL executor on it. */
export interface ServiceDatabase {
  readonly url: string;
  readonly config: AppConfig;
  readonly dataSource: DataSource;
  readonly sql: SqlExecutor;
  /** Warnings and errors the executor logged. */
  readonly logged: LoggedEntry[];
  close(): Promise<void>;
}

/**
 * The middle tier of tests: services against the real PostgreSQL, without HTTP or a process. Each
 * call makes a database of its own, migrated by the same code `migrate` runs; `env` adds settings
 * (DATABASE_POOL_MODE, DATABASE_READ_URL, …) as the service would read them, and `url` reaches the
 * database some other way (through a pooler).
 */
export async function openServiceDatabase(
  name: string,
  options: { env?: Record<string, string>; entities?: DataSourceOptions['entities']; via?: (directUrl: string) => string } = {},
): Promise<ServiceDatabase> {
  const databaseName = `foresight_it_${name}_${randomBytes(4).toString('hex')}`;
  await asAdmin((pg) => pg.query(`CREATE DATABASE ${databaseName}`));
  const direct = new URL(ADMIN_DATABASE_URL);
  direct.pathname = `/${databaseName}`;
  const url = options.via ? options.via(direct.toString()) : direct.toString();
  const config = loadConfig({
    DATABASE_URL: url,
    REDIS_URL,
    TOKEN_PEPPER: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ...options.env,
  });
  const dataSource = await new DataSource({
    type: 'postgres',
    url,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    entities: options.entities ?? [],
    extra: { max: config.databasePoolSize, idleTimeoutMillis: config.databaseIdleTimeoutMs },
  }).initialize();
  await applyMigrations(dataSource);
  const { logger, logged } = recordingLogger();
  const sql = new SqlExecutor(dataSource, config, logger);
  return {
    url,
    config,
    dataSource,
    sql,
    logged,
    close: async () => {
      await sql.onApplicationShutdown();
      await dataSource.destroy();
      await asAdmin((pg) => pg.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
    },
  };
}
