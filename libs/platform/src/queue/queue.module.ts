import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { reconnectDelay } from '../redis/reconnect';
import { DEFAULT_JOB_OPTIONS } from './queue-contract';
import { RedisPolicyCheckService } from './redis-policy-check.service';

/** BullMQ's shared connection settings. Queues themselves are registered by the lib that owns them. */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        // BullMQ needs its own connection options: no key prefix, unlimited retries per request (workers
        // keep their commands through an outage; request-path producers are bounded by RedisAvailabilityService).
        // Reconnect as quickly as the request client does, so queues recover with it.
        connection: { url: config.redisUrl.reveal(), maxRetriesPerRequest: null, retryStrategy: reconnectDelay },
        prefix: `${config.redisPrefix}bull`,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      }),
    }),
  ],
  providers: [RedisPolicyCheckService],
  exports: [BullModule],
})
export class QueueModule {}
