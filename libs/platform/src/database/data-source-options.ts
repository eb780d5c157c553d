import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/config';
import type { Logger } from '../logging/logger';
import { PinoTypeOrmLogger } from '../logging/typeorm-logger';
import { EMBEDDED_SOCKET_PORT, type EmbeddedPostgres } from './embedded-postgres';
import { MIGRATIONS } from './migrations';

/**
 * Options for the one TypeORM data source; entities are added by each lib's TypeOrmModule.forFeature.
 * `embedded`: where the embedded database's socket is, for a process that connects to it (whether it
 * serves it or not).
 */
export function dataSourceOptions(config: AppConfig, logger: Logger, embedded?: Pick<EmbeddedPostgres, 'socketDir'>): DataSourceOptions {
  const connection = embedded
    ? {
        host: embedded.socketDir,
        port: EMBEDDED_SOCKET_PORT,
        username: 'postgres',
        database: 'postgres',
        // PGlite runs one transaction at a time; one pooled connection keeps them apart.
        extra: { max: 1, idleTimeoutMillis: config.databaseIdleTimeoutMs },
      }
    : { url: config.databaseUrl?.reveal(), extra: { max: config.databasePoolSize, idleTimeoutMillis: config.databaseIdleTimeoutMs, connectionTimeoutMillis: 5000 } };
  return {
    type: 'postgres',
    ...connection,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    // TypeORM's own console logger would print failed statements with their PARAMETERS.
    logger: new PinoTypeOrmLogger(logger),
  };
}
