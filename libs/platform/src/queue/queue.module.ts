import { BullModule } from '@nestjs/bullmq';
import { Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { Cluster } from 'ioredis';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { queueConnection, queuePrefix } from '../redis/redis-connections';
import { DEFAULT_JOB_OPTIONS } from './queue-contract';
import { RedisPolicyCheckService } from './redis-policy-check.service';

/** BullMQ's connection of this process: options for one server or Sentinel, the one shared client on a Cluster. */
export const QUEUE_CONNECTION = Symbol('QUEUE_CONNECTION');

/** BullMQ leaves a client it was handed open: the Cluster client is closed here, once its queues are. */
@Injectable()
class QueueConnectionCloser implements OnApplicationShutdown {
  constructor(@Inject(QUEUE_CONNECTION) private readonly connection: ConnectionOptions) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.connection instanceof Cluster) await this.connection.quit().catch(() => (this.connection as Cluster).disconnect());
  }
}

@Module({
  providers: [
    { provide: QUEUE_CONNECTION, inject: [APP_CONFIG], useFactory: (config: AppConfig) => queueConnection(config.redis) },
    QueueConnectionCloser,
  ],
  exports: [QUEUE_CONNECTION],
})
class QueueConnectionModule {}

/** BullMQ's shared connection settings. Queues themselves are registered by the lib that owns them. */
@Module({
  imports: [
    QueueConnectionModule,
    BullModule.forRootAsync({
      imports: [QueueConnectionModule],
      inject: [APP_CONFIG, QUEUE_CONNECTION],
      useFactory: (config: AppConfig, connection: ConnectionOptions) => ({
        // Workers keep their commands through an outage; request-path producers are bounded by RedisAvailabilityService.
        connection,
        prefix: queuePrefix(config.redis.kind, config.redisPrefix),
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      }),
    }),
  ],
  providers: [RedisPolicyCheckService],
  exports: [BullModule, QueueConnectionModule],
})
export class QueueModule {}
