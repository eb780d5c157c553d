import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConfigModule } from './config/config.module';
import { Encryptor } from './crypto/encryption';
import { verifyEncryptionKey } from './crypto/encryption-key-check';
import { MonthlyPartitionsService } from './database/monthly-partitions.service';
import { SqlExecutor } from './database/sql/sql-executor';
import { HealthService } from './health/health.service';
import { LOGGER } from './logging/logger.provider';
import { MetricsModule } from './metrics/metrics.module';
import { BackgroundWork } from './queue/in-background';
import { RedisModule } from './redis/redis.module';
import type { Runtime } from './runtime';

/** Infrastructure every process needs: config, logger, Postgres (its monthly partitions, the SQL executor), Redis, metrics, encryption at rest, work on timers of the process. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(runtime: Runtime): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        ConfigModule.forRoot(runtime.config),
        TypeOrmModule.forRoot({ ...runtime.database, autoLoadEntities: true }),
        RedisModule,
        MetricsModule,
      ],
      providers: [
        { provide: LOGGER, useValue: runtime.logger },
        {
          provide: Encryptor,
          inject: [SqlExecutor],
          // Before any service can read or seal a value: a wrong key stops the process here.
          useFactory: async (sql: SqlExecutor) => {
            const encryptor = new Encryptor([runtime.config.encryptionKey, ...runtime.config.previousEncryptionKeys].map((key) => Buffer.from(key.reveal(), 'hex')));
            await verifyEncryptionKey(sql, encryptor);
            return encryptor;
          },
        },
        BackgroundWork,
        HealthService,
        MonthlyPartitionsService,
        SqlExecutor,
      ],
      exports: [LOGGER, BackgroundWork, Encryptor, HealthService, MonthlyPartitionsService, SqlExecutor, MetricsModule],
    };
  }
}
